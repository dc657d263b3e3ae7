//===- MpgInterfaces.td - mpg op interfaces -------------------*- tablegen -*-===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_DIALECT_MPG_INTERFACES
#define MPC_DIALECT_MPG_INTERFACES

include "mlir/IR/OpBase.td"

def Mpg_DifferentiableOpInterface : OpInterface<"DifferentiableOpInterface"> {
  let description = [{
    The VJP rule of an op: given the gradient of the loss with respect to
    each result, build the gradient with respect to each operand.
    `mpg-autodiff` calls it in reverse program order and sums the
    contributions of values used several times.
  }];
  let cppNamespace = "::mlir::mpg";
  let methods = [
    InterfaceMethod<[{
        Builds the operand gradients at the builder's insertion point.
        `resultGrads` has one value per result, null for a result with no
        gradient (at least one is set). `operandGrads` receives one value per
        operand, null where the operand gets no gradient (integer operands,
        labels, indices). Each gradient has its operand's type.
      }], "::llvm::LogicalResult", "buildVjp",
      (ins "::mlir::OpBuilder &":$builder, "::mlir::ValueRange":$resultGrads,
           "::llvm::SmallVectorImpl<::mlir::Value> &":$operandGrads)>
  ];
}

#endif // MPC_DIALECT_MPG_INTERFACES
