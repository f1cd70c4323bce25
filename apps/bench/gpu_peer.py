"""torch.compile peer of loom_gpu_bench: the same algorithms on the same sizes, timed on the
same GPU in the same call, timed as loom_gpu_bench times Loom (see timed()), with the device's
copy bandwidth measured beside them.

Prints one JSON object: {"copy_gbps": ..., "apps": {name: {"ms": median, "max_abs_err": ...}}}.
Each app's inputs are random (seeded); its output is checked against a float64 (or int64)
evaluation of the same formula in PyTorch eager mode before it is timed.
"""
import json
import sys

import torch
import triton.testing

N = 4096  # the apps' benchmark size (apps/pointwise, apps/blur)


def timed(fn):
    """triton.testing.do_bench's median: CUDA events around each call, the L2 cleared (and the
    GPU kept busy) before each; loom_gpu_bench times Loom the same way."""
    return triton.testing.do_bench(fn, warmup=50, rep=300, return_mode="median")


def copy_gbps():
    src = torch.empty(1 << 28, dtype=torch.float32, device="cuda").uniform_()
    dst = torch.empty_like(src)
    ms = timed(lambda: dst.copy_(src))
    return 2 * src.numel() * 4 / (ms * 1e-3) / 1e9


def chain():
    g = torch.Generator(device="cuda").manual_seed(1)
    a = torch.rand(N, N, device="cuda", generator=g) * 4 - 2
    b = torch.rand(N, N, device="cuda", generator=g) * 4 - 2
    f = torch.compile(lambda a, b: torch.sigmoid(torch.relu((a + b) * 2) - 1))
    out = f(a, b)
    ref = torch.sigmoid(torch.relu((a.double() + b.double()) * 2) - 1)
    return timed(lambda: f(a, b)), (out.double() - ref).abs().max().item()


def bias_relu():
    g = torch.Generator(device="cuda").manual_seed(2)
    x = torch.rand(N, N, device="cuda", generator=g) * 4 - 2
    bias = torch.rand(N, device="cuda", generator=g) * 2 - 1
    f = torch.compile(lambda x, bias: torch.relu(x * 2 + bias[None, :]))
    out = f(x, bias)
    ref = torch.relu(x.double() * 2 + bias.double()[None, :])
    return timed(lambda: f(x, bias)), (out.double() - ref).abs().max().item()


def blur():
    # A uint16 image; sums in int32, each mean truncated, as apps/blur/blur.inc. uint16
    # tensors where this PyTorch compiles them (the bytes Loom moves), else int32 input.
    g = torch.Generator(device="cuda").manual_seed(3)
    img32 = torch.randint(0, 65536, (N, N), device="cuda", generator=g, dtype=torch.int32)

    def blur_fn(img):
        i = img.to(torch.int32)
        bx = (i[:, :-2] + i[:, 1:-1] + i[:, 2:]) // 3
        return ((bx[:-2, :] + bx[1:-1, :] + bx[2:, :]) // 3).to(img.dtype)

    ref = blur_fn(img32.long())
    for dtype in (torch.uint16, torch.int32):
        try:
            img = img32.to(dtype)
            f = torch.compile(blur_fn)
            out = f(img)
            err = (out.to(torch.int64) - ref).abs().max().item()
            return timed(lambda: f(img)), err, str(dtype)
        except Exception:
            if dtype == torch.int32:
                raise
    raise AssertionError("unreachable")


def main():
    result = {"device": torch.cuda.get_device_name(), "torch": torch.__version__,
              "copy_gbps": copy_gbps(), "apps": {}}
    for name, fn in [("chain", chain), ("bias_relu", bias_relu), ("blur", blur)]:
        try:
            ms, err, *note = fn()
            result["apps"][name] = {"ms": ms, "max_abs_err": err, "note": " ".join(note)}
        except Exception as e:  # reported in the table, never hidden
            result["apps"][name] = {"error": repr(e)[:300]}
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main()
