// RUN: mpc-opt %s --mpg-seed-dropout -split-input-file -verify-diagnostics

// A name the pass would take.
mpg.graph @taken {
  %x = mpg.input "x" : tensor<8xf32>
  // expected-error @below {{mpg-seed-dropout keeps the dropout key in the state "dropout.seed" and "dropout.run", but the graph already has a tensor with the name "dropout.run"}}
  %s = mpg.state "dropout.run" init(zeros) : tensor<i64>
  %y = mpg.dropout %x rate 0.1 : tensor<8xf32>
  mpg.output "y" %y : tensor<8xf32>
}
