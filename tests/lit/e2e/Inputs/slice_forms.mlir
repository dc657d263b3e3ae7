// Slices whose host form walks contiguous runs from an offset start:
// slice-forms.test. "last" takes columns 4..12 of rows of 16 (the run's
// only dimension offset), "middle" rows 1..3 of 4 whole rows of 16 (the
// run's outer dimension offset, the inner whole), "half" a slice of a bf16
// tensor offset in two dimensions (read back widened),
// "stepped" every second column (no run: one element at a time).
mpg.graph @slice_forms {
  %x = mpg.input "x" : tensor<6x4x16xf32>
  %last = mpg.slice %x start [0, 0, 4] limit [6, 4, 12] : tensor<6x4x16xf32> -> tensor<6x4x8xf32>
  %a = mpg.exp %last : tensor<6x4x8xf32>
  mpg.output "last" %a : tensor<6x4x8xf32>
  %middle = mpg.slice %x start [0, 1, 0] limit [6, 3, 16] : tensor<6x4x16xf32> -> tensor<6x2x16xf32>
  %b = mpg.tanh %middle : tensor<6x2x16xf32>
  mpg.output "middle" %b : tensor<6x2x16xf32>
  %h = mpg.cast %x : tensor<6x4x16xf32> to tensor<6x4x16xbf16>
  %half = mpg.slice %h start [0, 1, 3] limit [6, 4, 16] : tensor<6x4x16xbf16> -> tensor<6x3x13xbf16>
  %wide = mpg.cast %half : tensor<6x3x13xbf16> to tensor<6x3x13xf32>
  mpg.output "half" %wide : tensor<6x3x13xf32>
  %stepped = mpg.slice %x start [0, 0, 1] limit [6, 4, 16] step [1, 1, 2] : tensor<6x4x16xf32> -> tensor<6x4x8xf32>
  mpg.output "stepped" %stepped : tensor<6x4x8xf32>
}
