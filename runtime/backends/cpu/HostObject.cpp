//===- HostObject.cpp - the shared object of a bundle's host kernels ------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "HostObject.h"

#include "mpc/toolchain/HostCpu.h"
#include "mpc/format/Json.h"
#include "mpc/toolchain/ObjectCache.h"

#include <cstring>
#include <dlfcn.h>
#include <elf.h>
#include <link.h>

namespace mpc::rt {

namespace {

/// Why `bytes` is not a whole 64-bit ELF shared object of this machine, or
/// empty when it is one: the header, the program headers and every loadable
/// segment's bytes lie inside the file. (dlopen maps segments past the end
/// of a truncated file and the process dies of SIGBUS on touching them.)
std::string elfProblem(const std::string &bytes) {
  Elf64_Ehdr header;
  if (bytes.size() < sizeof header)
    return "it is shorter than an ELF header (" + std::to_string(bytes.size()) + " bytes)";
  std::memcpy(&header, bytes.data(), sizeof header);
  if (std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0)
    return "it is not an ELF file";
  if (header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_ident[EI_DATA] != ELFDATA2LSB ||
      header.e_machine != EM_X86_64 || header.e_type != ET_DYN)
    return "it is not a 64-bit x86-64 shared object";
  if (header.e_phentsize != sizeof(Elf64_Phdr))
    return "its program headers have an unexpected size";
  uint64_t size = bytes.size();
  uint64_t tableEnd = header.e_phoff + uint64_t(header.e_phnum) * sizeof(Elf64_Phdr);
  if (header.e_phoff > size || tableEnd > size || tableEnd < header.e_phoff)
    return "its program headers lie past the end of its " + std::to_string(size) + " bytes";
  for (uint16_t i = 0; i < header.e_phnum; ++i) {
    Elf64_Phdr segment;
    std::memcpy(&segment, bytes.data() + header.e_phoff + i * sizeof segment, sizeof segment);
    if (segment.p_type != PT_LOAD && segment.p_type != PT_DYNAMIC)
      continue;
    uint64_t end = segment.p_offset + segment.p_filesz;
    if (end < segment.p_offset || end > size)
      return "segment " + std::to_string(i) + " ends at byte " + std::to_string(end) +
             ", past the end of its " + std::to_string(size) + " bytes (truncated?)";
  }
  return "";
}

/// The symbols the dynamic symbol table of `bytes` (an ELF shared object
/// elfProblem accepted) defines, global or weak, by name; false when the
/// object has no section headers or no such table. A table or a name that
/// lies outside the file is an error (`problem`).
bool readDefinedSymbols(const std::string &bytes,
                        std::unordered_map<std::string, HostObject::DefinedSymbol> &out,
                        std::string &problem) {
  Elf64_Ehdr header;
  std::memcpy(&header, bytes.data(), sizeof header);
  const uint64_t size = bytes.size();
  if (header.e_shoff == 0 || header.e_shnum == 0)
    return false;
  if (header.e_shentsize != sizeof(Elf64_Shdr) || header.e_shoff > size ||
      (size - header.e_shoff) / sizeof(Elf64_Shdr) < header.e_shnum) {
    problem = "its section headers lie past the end of its " + std::to_string(size) + " bytes";
    return false;
  }
  auto section = [&](uint64_t index) {
    Elf64_Shdr entry;
    std::memcpy(&entry, bytes.data() + header.e_shoff + index * sizeof entry, sizeof entry);
    return entry;
  };
  auto inside = [&](const Elf64_Shdr &entry) {
    return entry.sh_offset <= size && entry.sh_size <= size - entry.sh_offset;
  };
  for (uint64_t index = 0; index < header.e_shnum; ++index) {
    Elf64_Shdr table = section(index);
    if (table.sh_type != SHT_DYNSYM)
      continue;
    Elf64_Shdr names = table.sh_link < header.e_shnum ? section(table.sh_link) : Elf64_Shdr{};
    if (table.sh_entsize != sizeof(Elf64_Sym) || !inside(table) || names.sh_type != SHT_STRTAB ||
        !inside(names)) {
      problem = "its dynamic symbol table (section " + std::to_string(index) +
                ") or its names lie outside its " + std::to_string(size) + " bytes";
      return false;
    }
    const char *strings = bytes.data() + names.sh_offset;
    for (uint64_t at = sizeof(Elf64_Sym); at + sizeof(Elf64_Sym) <= table.sh_size;
         at += sizeof(Elf64_Sym)) {
      Elf64_Sym symbol;
      std::memcpy(&symbol, bytes.data() + table.sh_offset + at, sizeof symbol);
      if (symbol.st_shndx == SHN_UNDEF || ELF64_ST_BIND(symbol.st_info) == STB_LOCAL)
        continue;
      const char *end = symbol.st_name < names.sh_size
                            ? static_cast<const char *>(std::memchr(strings + symbol.st_name, '\0',
                                                                    names.sh_size - symbol.st_name))
                            : nullptr;
      if (!end) {
        problem = "a name in its dynamic symbol table lies outside its string table";
        return false;
      }
      out[std::string(strings + symbol.st_name, end)] = {
          static_cast<unsigned char>(ELF64_ST_TYPE(symbol.st_info)), symbol.st_size};
    }
    return true;
  }
  return false;
}

/// The instructions an x86-64 level adds, for a message: " (AVX-512)".
std::string levelInstructions(const std::string &level) {
  if (level == "x86-64-v4")
    return " (AVX-512)";
  if (level == "x86-64-v3")
    return " (AVX2, FMA, F16C)";
  return "";
}

} // namespace

HostObject::~HostObject() {
  if (handle_)
    ::dlclose(handle_);
}

Status HostObject::load(const std::string &bundlePath,
                        const std::string &bytes) {
  bundlePath_ = bundlePath;
  if (std::string problem = elfProblem(bytes); !problem.empty())
    return Status::error(MPC_FORMAT_ERROR,
                         bundlePath + ": cannot load its host object (section \"" +
                             kHostObjectSection + "\"): " + problem);
  std::string symbolProblem;
  fromTable_ = readDefinedSymbols(bytes, defined_, symbolProblem);
  if (!symbolProblem.empty())
    return Status::error(MPC_FORMAT_ERROR, bundlePath +
                                               ": cannot load its host object (section \"" +
                                               kHostObjectSection + "\"): " + symbolProblem);
  std::string path;
  if (Status status = cacheObject(bytes, "host", ".so", path); !status.isOk())
    return Status::error(status.code(), bundlePath +
                                            ": cannot cache the host "
                                            "object: " +
                                            status.message());
  // RTLD_NODELETE: the kernels may run on OpenMP worker threads that
  // outlive the program; unmapping the object (and libgomp with it) under
  // them would crash the process at exit.
  handle_ = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (!handle_) {
    const char *error = ::dlerror();
    return Status::error(MPC_FORMAT_ERROR,
                         bundlePath + ": cannot load its host object '" + path +
                             "': " + (error ? error : "unknown error"));
  }
  // Kernels compiled for a newer x86-64 level than this CPU's would stop the
  // process on an illegal instruction: refuse them here.
  if (const char *isa = static_cast<const char *>(::dlsym(handle_, "mpc_host_isa"));
      isa && !cpuRunsX8664Level(isa))
    return Status::error(MPC_UNSUPPORTED,
                         bundlePath + ": its host kernels need an " + isa + " CPU" +
                             levelInstructions(isa) +
                             ", which this one is not; compile the graph again here, or with "
                             "MPC_HOST_ARCH=x86-64 for any x86-64 CPU");
  return Status();
}

Status HostObject::kernel(const std::string &name, HostKernel &out) const {
  ::dlerror();
  void *symbol = ::dlsym(handle_, name.c_str());
  if (!symbol)
    return Status::error(MPC_FORMAT_ERROR,
                         bundlePath_ + ": kernel " + quoteJson(name) +
                             " is missing from the host object");
  // dlsym also finds the symbols of the object's dependencies (libc's exit,
  // abort, ...) and data: a kernel must be a function of the object itself.
  if (!definedHere(name, symbol, STT_FUNC))
    return Status::error(MPC_FORMAT_ERROR, bundlePath_ + ": kernel " + quoteJson(name) +
                                               " is not a function of the host object");
  out = reinterpret_cast<HostKernel>(symbol);
  return Status();
}

std::optional<HostObject::DefinedSymbol>
HostObject::definedHere(const std::string &name, void *symbol, unsigned char type) const {
  if (fromTable_) {
    // dlsym looks in the object before the libraries it needs: a name the
    // object defines is the object's.
    auto found = defined_.find(name);
    if (found == defined_.end() || found->second.type != type)
      return std::nullopt;
    return found->second;
  }
  Dl_info where, own;
  void *entryAddress = nullptr;
  link_map *object = nullptr;
  if (!::dladdr1(symbol, &where, &entryAddress, RTLD_DL_SYMENT) || !entryAddress)
    return std::nullopt;
  const auto *entry = static_cast<const ElfW(Sym) *>(entryAddress);
  bool here = ELF64_ST_TYPE(entry->st_info) == type &&
              ::dlinfo(handle_, RTLD_DI_LINKMAP, &object) == 0 && object &&
              ::dladdr(object->l_ld, &own) && own.dli_fbase == where.dli_fbase;
  if (!here)
    return std::nullopt;
  return DefinedSymbol{type, entry->st_size};
}

const unsigned long long *HostObject::bufferBytes(const std::string &name, size_t &count) const {
  ::dlerror();
  std::string tableName = name + "_mpc_buffer_bytes";
  void *symbol = ::dlsym(handle_, tableName.c_str());
  std::optional<DefinedSymbol> entry =
      symbol ? definedHere(tableName, symbol, STT_OBJECT) : std::nullopt;
  if (!entry)
    return nullptr;
  // (the count first, then as many sizes as the symbol holds)
  const auto *table = static_cast<const unsigned long long *>(symbol);
  size_t entries = entry->size / sizeof *table;
  if (entries == 0 || table[0] != entries - 1)
    return nullptr;
  count = static_cast<size_t>(table[0]);
  return table + 1;
}

} // namespace mpc::rt
