"""The fused AutoNorm forward (`_MixDyTLN` through torch's C entry, both entropies in one pass, the gate log kept
as device tensors) against an explicit unfused oracle built from F.layer_norm and torch.tanh: outputs, gradients
and the recorded gate statistics, in train and eval mode, soft and hard gates, causal and per-sample (issue 26)."""
import pytest
import torch
import torch.nn.functional as F

from autonorm_explorer.norms.autonorm import AutoNorm, binary_entropy


def _site(causal: bool, hard: bool, dtype) -> AutoNorm:
    torch.manual_seed(0)
    an = AutoNorm(16, hard=hard, eval_mode="argmax" if hard else "soft", causal=causal).to(dtype)
    with torch.no_grad():                                                # not the identity init: every term counts
        for p in (an.dyt.weight, an.dyt.bias, an.ln.weight, an.ln.bias):
            p.add_(0.3 * torch.randn_like(p))
        an.dyt.alpha.fill_(0.8)
    return an


def _oracle(an: AutoNorm, x: torch.Tensor, mask, w: torch.Tensor) -> torch.Tensor:
    "w_DyT·(γ tanh(αx) + β) + w_LN·LN(x), unfused; w [B, 2] (per sample) or [B, N, 2] (per token)."
    wv = w[:, None, :] if w.ndim == 2 else w                             # [B, 1 or N, 2]
    dyt = an.dyt.weight * torch.tanh(an.dyt.alpha * x) + an.dyt.bias
    ln = F.layer_norm(x, (an.dim,), an.ln.weight, an.ln.bias, an.eps)
    return wv[..., 0:1] * dyt + wv[..., 1:2] * ln


@pytest.mark.parametrize("dtype,tol", [(torch.float64, 1e-10), (torch.float32, 1e-6)])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("hard", [False, True])
@pytest.mark.parametrize("train", [True, False])
@pytest.mark.parametrize("masked", [False, True])
def test_fused_forward_matches_unfused_oracle(dtype, tol, causal, hard, train, masked):
    an = _site(causal, hard, dtype).train(train)
    x = (torch.randn(3, 7, 16, generator=torch.Generator().manual_seed(1)) * 2 + 0.3).to(dtype)
    mask = torch.tensor([[True] * 7, [True] * 5 + [False] * 2, [True] * 2 + [False] * 5]) if masked else None
    xa, xb = x.clone().requires_grad_(), x.clone().requires_grad_()
    torch.manual_seed(7)                                                 # the same Gumbel draws in both
    y = an(xa, mask)
    steps = an.train_steps
    torch.manual_seed(7)
    an.train_steps -= int(train)                                         # the oracle's gate at the same τ step
    logits = an.selector(xb, mask)
    w = an.gate_weights(logits)
    assert an.train_steps == steps
    ref = _oracle(an, xb, mask, w)
    assert (y - ref).abs().max().item() <= tol * max(1.0, ref.abs().max().item())
    # gradients: x and every parameter, through the straight-through hard gate too
    g = torch.randn_like(ref)
    params = [p for p in an.parameters() if p.requires_grad]
    got = torch.autograd.grad((y * g).sum(), [xa, *params], allow_unused=True)
    want = torch.autograd.grad((ref * g).sum(), [xb, *params], allow_unused=True)
    gtol = tol if dtype == torch.float64 else 1e-5
    for a, b in zip(got, want):                                          # None: the argmax gate has no gradient
        assert (a is None) == (b is None)
        assert a is None or (a - b).abs().max().item() <= gtol * max(1.0, b.abs().max().item())
    # the gate log: last weights and entropies, and the epoch sums in training
    ld = logits.detach()
    h, h_tau = binary_entropy(F.softmax(ld, -1)), binary_entropy(F.softmax(ld / an.current_tau(), -1))
    wd = w.detach()
    if causal:
        m = torch.ones(3, 7, dtype=dtype) if mask is None else mask.to(dtype)
        n = m.sum(1)
        wd, h, h_tau = (wd * m[..., None]).sum(1) / n[:, None], (h * m).sum(1) / n, (h_tau * m).sum(1) / n
    close = lambda a, b: abs(float(a) - float(b)) <= tol * 10              # noqa: E731
    assert torch.allclose(an.last_weights, wd, atol=tol, rtol=0)
    assert close(an.last_entropy, h.mean()) and close(an.last_entropy_tau, h_tau.mean())
    if train:
        assert an._acc_n == 3
        assert close(an._acc_w_dyt, wd[:, 0].sum()) and close(an._acc_entropy, h.sum())
        assert close(an._acc_entropy_tau, h_tau.sum())
        rec = an.close_epoch(0)
        assert isinstance(rec["w_dyt"], float) and close(rec["w_dyt"], wd[:, 0].mean())
    else:
        assert an._acc_n == 0


def test_fused_path_under_torch_func():
    "torch.func transforms take the public Function.apply (its vmap rule and jvp), and agree with eager autograd."
    an = _site(False, False, torch.float64).eval()
    x = torch.randn(2, 5, 16, dtype=torch.float64)
    f = lambda x: an(x)                                                  # noqa: E731
    jac = torch.func.jacrev(f)(x)
    jac_fwd = torch.func.jacfwd(f)(x)
    eager = torch.autograd.functional.jacobian(f, x)
    assert torch.allclose(jac, eager, atol=1e-10) and torch.allclose(jac_fwd, eager, atol=1e-10)
