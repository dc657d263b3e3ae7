//===- KernelKinds.cpp - what each generated kernel of a bundle does ------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "KernelKinds.h"

#include "mpc/format/Bundle.h"

#include <cctype>
#include <vector>

namespace mpc::bench {

namespace {

bool isIdentifier(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

/// The last "mpc::NAME(" or "mpc::NAME<" of `body`; "other" when none.
std::string lastLibraryCall(const std::string &body) {
  std::string last = "other";
  const std::string prefix = "mpc::";
  for (size_t at = body.find(prefix); at != std::string::npos; at = body.find(prefix, at + 1)) {
    size_t begin = at + prefix.size(), end = begin;
    while (end < body.size() && isIdentifier(body[end]))
      ++end;
    size_t next = end;
    while (next < body.size() && body[next] == ' ')
      ++next;
    if (end > begin && next < body.size() && (body[next] == '(' || body[next] == '<'))
      last = body.substr(begin, end - begin);
  }
  return last;
}

} // namespace

std::map<std::string, std::string> kernelKinds(const std::string &source) {
  std::map<std::string, std::string> kinds;
  // "MPC_KERNEL(k3) {", or "MPC_KERNEL_BOUNDED(k3, 1024) {" for a kernel
  // with a launch bound
  const std::string marker = "MPC_KERNEL";
  for (size_t at = source.find(marker); at != std::string::npos; at = source.find(marker, at + 1)) {
    size_t nameBegin = at + marker.size();
    if (source.compare(nameBegin, 1, "(") == 0)
      nameBegin += 1;
    else if (source.compare(nameBegin, 9, "_BOUNDED(") == 0)
      nameBegin += 9;
    else
      continue; // (MPC_KERNEL_BUFFER_BYTES and the like)
    size_t nameEnd = source.find_first_of(",)", nameBegin);
    size_t open = source.find('{', nameEnd);
    // The body ends at the first closing brace at the start of a line.
    size_t close = source.find("\n}", open);
    if (nameEnd == std::string::npos || open == std::string::npos || close == std::string::npos)
      break;
    kinds[source.substr(nameBegin, nameEnd - nameBegin)] =
        lastLibraryCall(source.substr(open, close - open));
  }
  return kinds;
}

rt::Status kernelKindsOfBundle(const std::string &bundle, std::map<std::string, std::string> &out) {
  std::vector<rt::BundleSection> sections;
  if (rt::Status status = rt::readBundle(bundle, sections); !status.isOk())
    return status;
  const rt::BundleSection *source = rt::findSection(sections, "kernels.cu");
  out = source ? kernelKinds(source->bytes) : std::map<std::string, std::string>();
  return rt::Status();
}

} // namespace mpc::bench
