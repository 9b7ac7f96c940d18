"""autonormify and block_rank_profile on real timm models (random init, tiny configs; nothing downloaded).

timm's norm layers are its own classes (`timm.layers.LayerNorm`, `LayerNorm2d`: subclasses of nn.LayerNorm with
their own forward, channels last or channels first), and its ViTs keep their blocks in `blocks`, with LayerScale,
register tokens, distillation tokens or rotary embeddings depending on the family. Oracles: the unconverted model's
own output, a count of its LayerNorm modules, jacrev through the model's own forward (the first block's input
swapped for the variable), and the branches read from the blocks' own submodules."""
import copy

import numpy as np
import pytest
import scipy.stats
import torch
from torch import nn
from torch.func import jacrev
from torch.nn.attention import SDPBackend, sdpa_kernel

from autonorm_explorer.norms.convert import autonormify, layernorm_spec
from autonorm_explorer.rank.blocks import block_rank_profile
from timm_support import load_timm

timm = load_timm()
from timm.models.mlp_mixer import MlpMixer  # noqa: E402

VIT = dict(img_size=16, patch_size=8, depth=2, embed_dim=16, num_heads=2, num_classes=5)
FAMILIES = {  # name -> (builder, image side)
    "vit": (lambda: timm.create_model("vit_tiny_patch16_224", **VIT), 16),
    "vit-layerscale-registers": (lambda: timm.create_model(
        "vit_small_patch16_224", **VIT, init_values=1e-5, reg_tokens=2, class_token=False, global_pool="avg"), 16),
    "deit-distilled": (lambda: timm.create_model("deit_tiny_distilled_patch16_224", **VIT), 16),
    "eva02-rope": (lambda: timm.create_model("eva02_tiny_patch14_224", img_size=28, patch_size=14, depth=2,
                                             embed_dim=16, num_heads=2, num_classes=5), 28),
    "convnext": (lambda: timm.create_model("convnext_atto", depths=(1, 1, 1, 1), dims=(8, 16, 24, 32),
                                           num_classes=5), 32),
    "swin": (lambda: timm.create_model("swin_tiny_patch4_window7_224", img_size=32, patch_size=4, window_size=2,
                                       depths=(1, 1), num_heads=(1, 2), embed_dim=16, num_classes=5), 32),
    "mixer": (lambda: MlpMixer(img_size=16, patch_size=8, num_blocks=2, embed_dim=16, num_classes=5), 16),
}


def build(name: str) -> tuple[nn.Module, torch.Tensor]:
    "A tiny random-init timm model of family `name` (LayerNorm affines perturbed), in eval mode, and two images."
    make, side = FAMILIES[name]
    torch.manual_seed(0)
    model = make().eval()
    g = torch.Generator().manual_seed(1)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.LayerNorm) and m.elementwise_affine:   # a converter that drops γ, β is caught
                m.weight.add_(0.3 * torch.randn(m.weight.shape, generator=g))
                m.bias.add_(0.3 * torch.randn(m.bias.shape, generator=g))
    return model, torch.randn(2, 3, side, side, generator=g)


@pytest.mark.parametrize("name", list(FAMILIES))
def test_autonormify_timm(name):
    model, x = build(name)
    with torch.no_grad():
        want = model(x)
    n_norms = sum(isinstance(m, nn.LayerNorm) for m in model.modules())
    ln, sites = autonormify(copy.deepcopy(model), "ln")
    assert len(sites) == n_norms > 0                                  # every LayerNorm of timm's, none else
    with torch.no_grad():
        torch.testing.assert_close(ln.eval()(x), want, rtol=1e-6, atol=1e-6)
    layouts = {type(m).__name__ for m in model.modules() if isinstance(m, nn.LayerNorm)}
    if "LayerNorm2d" in layouts:                                      # channels first, found by behaviour
        assert {s.channel_dim for s in sites if s.source.endswith("LayerNorm2d")} == {1}
    assert not any(s.causal for s in sites)                           # images: no site may be causal
    an, an_sites = autonormify(copy.deepcopy(model), "autonorm")
    an.train()
    out = an(x)
    out.square().mean().backward()
    assert torch.isfinite(out).all()
    selectors = [p for n, p in an.named_parameters() if "selector" in n or "logit" in n]
    assert selectors and all(p.grad is not None and torch.isfinite(p.grad).all() for p in selectors)


def test_timm_channels_first_negative_control():
    "Forcing ConvNeXt's LayerNorm2d to normalize the last axis must not pass the equality check above."
    timm_norm = pytest.importorskip("timm.layers")
    model, x = build("convnext")
    rules = {timm_norm.LayerNorm2d: lambda m: layernorm_spec(m, channel_dim=-1)}
    with torch.no_grad():
        want = model(x)
    try:
        ln, _ = autonormify(copy.deepcopy(model), "ln", rules=rules)
        with torch.no_grad():
            got = ln.eval()(x)
    except (RuntimeError, ValueError):
        return                                                         # refused: also a failure of the wrong rule
    assert not torch.allclose(got, want, rtol=1e-3, atol=1e-3)


def _own_forward_profile(model: nn.Module, x: torch.Tensor) -> tuple[np.ndarray, list, list]:
    """erank/K of ∂h_ℓ/∂h_0 for ℓ = 1..L by jacrev through the model's own forward_features (the first block's
    input swapped for the variable; the blocks' outputs read by hooks), and the branch-to-skip ratios read from
    each block's own submodules (ls1/ls2 after attention/MLP, LayerScale or Identity)."""
    m = copy.deepcopy(model).double().eval()
    x = x[:1].double()
    blocks = list(m.blocks)

    def hidden(z):
        outs = []
        swap = blocks[0].register_forward_pre_hook(lambda mod, args: (z,) + tuple(args[1:]))
        hooks = [b.register_forward_hook(lambda mod, a, o: outs.append(o)) for b in blocks]
        try:
            m.forward_features(x)
        finally:
            swap.remove()
            for h in hooks: h.remove()
        return torch.stack(outs)                                       # [L, 1, N, d]

    box = []
    grab = blocks[0].register_forward_pre_hook(lambda mod, args: box.append(args[0]))
    with torch.no_grad():
        m.forward_features(x)
    grab.remove()
    h0 = box[0]
    with sdpa_kernel([SDPBackend.MATH]):
        J = jacrev(hidden)(h0)                                         # [L, 1, N, d, 1, N, d]
    K = h0.numel()
    eranks = [float(np.exp(scipy.stats.entropy(np.linalg.svd(J[l].detach().reshape(K, K).numpy(), compute_uv=False)))) / K
              for l in range(len(blocks))]
    rho_attn, rho_mlp = [], []
    with torch.no_grad():
        h = h0
        for b in blocks:
            a = b.ls1(b.attn(b.norm1(h)))
            s = h + a
            f = b.ls2(b.mlp(b.norm2(s)))
            rho_attn.append(float((a.norm(dim=-1) / h.norm(dim=-1)).mean()))
            rho_mlp.append(float((f.norm(dim=-1) / s.norm(dim=-1)).mean()))
            h = s + f
    return np.array(eranks), rho_attn, rho_mlp


@pytest.mark.parametrize("name", ["vit", "vit-layerscale-registers", "deit-distilled"])
def test_block_rank_profile_timm_vits(name):
    model, x = build(name)
    prof = block_rank_profile(model, x[:1], method="exact", representation=False)
    want, rho_attn, rho_mlp = _own_forward_profile(model, x)
    np.testing.assert_allclose(prof.jacobian_erank.to_numpy()[1:], want, rtol=0, atol=1e-12)
    np.testing.assert_allclose(prof.branch_skip_ratio_attn.to_numpy()[1:], rho_attn, rtol=1e-10)
    np.testing.assert_allclose(prof.branch_skip_ratio_mlp.to_numpy()[1:], rho_mlp, rtol=1e-10)


def test_block_rank_profile_timm_eva_and_estimate():
    "EVA-02 (rotary embeddings passed to every block): ratios found; the estimate's interval covers the exact value."
    model, x = build("eva02-rope")
    ex = block_rank_profile(model, x[:1], method="exact", representation=False)
    assert ex.branch_skip_ratio_attn[1:].gt(0).all() and ex.branch_skip_ratio_mlp[1:].gt(0).all()
    model, x = build("vit")
    ex = block_rank_profile(model, x[:1], method="exact", representation=False)
    es = block_rank_profile(model, x[:1], method="estimate", representation=False, seed=0)
    gap = (es.jacobian_erank - ex.jacobian_erank).abs().to_numpy()[1:]
    assert (gap <= es.jacobian_erank_ci.to_numpy()[1:] + 1e-12).all(), (gap, es.jacobian_erank_ci)


@pytest.mark.parametrize("name", ["convnext", "swin"])
def test_block_rank_profile_timm_hierarchical_refused(name):
    "Hierarchical models (stages that change the resolution) are not one stream: refused, saying what it found."
    model, x = build(name)
    with pytest.raises(ValueError, match=r"\[B, d\] or \[B, N, d\]"):
        block_rank_profile(model, x[:1], method="exact", representation=False)
