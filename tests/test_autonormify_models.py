"""`autonormify` against the models people use: torch's `TransformerEncoder` in its four layouts and
tiny random-init HF BERT, GPT-2, ViT, T5 encoder, Llama and ConvNeXt from configs (no download),
for every method and every check. `python tests/test_autonormify_models.py` prints the
model × method × check table."""

from __future__ import annotations
import copy, io, os, re, sys
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
import pytest
import torch
import torch.nn as nn
import transformers as hf
from transformers.models.convnext.modeling_convnext import ConvNextLayerNorm
from transformers.models.llama.modeling_llama import LlamaRMSNorm
from transformers.models.t5.modeling_t5 import T5LayerNorm

from autonorm_explorer.norms.autonorm import GatedSite, TauAnneal, gate_epoch_summary, gated_sites
from autonorm_explorer.norms.convert import NormSite, autonormify, layernorm_spec
from autonorm_explorer.norms.registry import NORM_METHODS
from autonorm_explorer.norms.schedule import freeze_selectors

torch.set_num_threads(1)
B, N, D, VOCAB = 3, 6, 16, 100
CHECKS = (
    "sites",
    "fwd_bwd",
    "batch_indep",
    "padding",
    "causal",
    "identity",
    "affine",
    "state_dict",
    "determinism",
    "atomic",
    "checkpointing",
)


# ------------------------------------------------ the models
@dataclass
class Case:
    name: str
    make: Callable[[], nn.Module]  # seeded, before perturbing the affines
    norm_classes: tuple  # oracle: the classes of the sites, for this model
    kind: str = "text"  # "text" (ids + attention_mask), "torch" (features + key padding), "image"
    targets: tuple = ("layernorm",)
    rules: dict = field(default_factory=dict)
    batch_axis: int = 0  # of the input features and of the output
    decoder: bool = False
    hf: bool = True
    rms: bool = False  # the sites are RMSNorms (then `rms` is the identity method)


def _te(batch_first: bool, norm_first: bool) -> nn.Module:
    layer = nn.TransformerEncoderLayer(
        D, 2, dim_feedforward=32, dropout=0.1, batch_first=batch_first, norm_first=norm_first
    )
    return nn.TransformerEncoder(
        layer, 2, norm=nn.LayerNorm(D)
    )  # torch's defaults (nested tensors on)


def _convnext_rule(m):
    return layernorm_spec(m, channel_dim=1 if m.data_format == "channels_first" else -1)


TEXT = dict(vocab_size=VOCAB, bos_token_id=0, eos_token_id=0, pad_token_id=0)
CASES = {
    c.name: c
    for c in [
        *[
            Case(
                f"torch_TE(batch_first={bf},norm_first={nf})",
                lambda bf=bf, nf=nf: _te(bf, nf),
                (nn.LayerNorm,),
                kind="torch",
                batch_axis=0 if bf else 1,
                hf=False,
            )
            for bf in (True, False)
            for nf in (False, True)
        ],
        Case(
            "BertModel",
            lambda: hf.BertModel(
                hf.BertConfig(
                    hidden_size=D,
                    num_hidden_layers=2,
                    num_attention_heads=2,
                    intermediate_size=32,
                    vocab_size=VOCAB,
                )
            ),
            (nn.LayerNorm,),
        ),
        Case(
            "GPT2Model",
            lambda: hf.GPT2Model(
                hf.GPT2Config(n_embd=D, n_layer=2, n_head=2, n_positions=32, **TEXT)
            ),
            (nn.LayerNorm,),
            decoder=True,
        ),
        Case(
            "ViTModel",
            lambda: hf.ViTModel(
                hf.ViTConfig(
                    hidden_size=D,
                    num_hidden_layers=2,
                    num_attention_heads=2,
                    intermediate_size=32,
                    image_size=8,
                    patch_size=4,
                )
            ),
            (nn.LayerNorm,),
            kind="image",
        ),
        Case(
            "T5EncoderModel",
            lambda: hf.T5EncoderModel(
                hf.T5Config(d_model=D, d_kv=8, d_ff=32, num_layers=2, num_heads=2, vocab_size=VOCAB)
            ),
            (T5LayerNorm,),
            targets=("layernorm", "rmsnorm"),
            rms=True,
        ),
        Case(
            "LlamaModel",
            lambda: hf.LlamaModel(
                hf.LlamaConfig(
                    hidden_size=D,
                    num_hidden_layers=2,
                    num_attention_heads=2,
                    num_key_value_heads=2,
                    intermediate_size=32,
                    **TEXT,
                )
            ),
            (LlamaRMSNorm,),
            targets=("layernorm", "rmsnorm"),
            decoder=True,
            rms=True,
        ),
        Case(
            "ConvNextModel",
            lambda: hf.ConvNextModel(
                hf.ConvNextConfig(
                    num_channels=3, hidden_sizes=[8, 16], depths=[1, 1], num_stages=2, image_size=16
                )
            ),
            (ConvNextLayerNorm, nn.LayerNorm),
            kind="image",
            rules={ConvNextLayerNorm: _convnext_rule},
        ),
    ]
}


@lru_cache(maxsize=None)
def base_model(name: str) -> nn.Module:
    "The unconverted model, seeded, every norm's γ, β perturbed ('γ carried' cannot pass by luck)."
    torch.manual_seed(0)
    model = CASES[name].make()
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, CASES[name].norm_classes):
                m.weight.copy_(1 + 0.3 * torch.randn_like(m.weight))
                if getattr(m, "bias", None) is not None:
                    m.bias.copy_(0.3 * torch.randn_like(m.bias))
    return model.eval()


def expected_sites(name: str) -> list[str]:
    return [
        n for n, m in base_model(name).named_modules() if isinstance(m, CASES[name].norm_classes)
    ]


def method_kw(method: str) -> dict:
    return (
        dict(tau_schedule=TauAnneal(1.0, 0.1, 0.5, 1)) if method == "autonorm" else {}
    )  # τ moves every step


def converted(name: str, method: str):
    c = CASES[name]
    torch.manual_seed(0)  # the new layers' init (selectors)
    return autonormify(
        copy.deepcopy(base_model(name)),
        method,
        targets=c.targets,
        rules=c.rules,
        **method_kw(method),
    )


# ------------------------------------------------ inputs and outputs
def inputs(name: str, seed: int = 1, padded: bool = False) -> dict:
    "Call arguments for a batch of B; with `padded`, sample 0's last 2 tokens are padding."
    c, g = CASES[name], torch.Generator().manual_seed(seed)
    if c.kind == "image":
        size = 8 if name == "ViTModel" else 16
        return dict(pixel_values=torch.randn(B, 3, size, size, generator=g))
    real = torch.ones(B, N, dtype=torch.bool)
    if padded:
        real[0, -2:] = False
    if c.kind == "torch":
        x = torch.randn(B, N, D, generator=g)
        return dict(src=x if c.batch_axis == 0 else x.transpose(0, 1), src_key_padding_mask=~real)
    return dict(input_ids=torch.randint(1, VOCAB, (B, N), generator=g), attention_mask=real.long())


def outputs(model: nn.Module, name: str, args: dict) -> torch.Tensor:
    "Output features with the batch axis first."
    y = model(**args)
    y = y if isinstance(y, torch.Tensor) else y.last_hidden_state
    return y.transpose(0, 1) if CASES[name].batch_axis == 1 else y


def change_sample(name: str, args: dict, sample: int, tokens=slice(None)) -> dict:
    "A copy of `args` with `sample`'s content at `tokens` changed (mask untouched)."
    args = {k: v.clone() for k, v in args.items()}
    c = CASES[name]
    g = torch.Generator().manual_seed(99)
    if c.kind == "image":
        args["pixel_values"][sample] += torch.randn(args["pixel_values"][sample].shape, generator=g)
    elif c.kind == "text":
        args["input_ids"][sample, tokens] = (args["input_ids"][sample, tokens] + 7) % (
            VOCAB - 1
        ) + 1
    else:  # not a constant shift: LN would remove it
        x = args["src"]
        view = x[sample, tokens] if c.batch_axis == 0 else x[tokens, sample]
        view += 3.0 * torch.randn(view.shape, generator=g)
    return args


def eval_out(model, name, args):
    with torch.no_grad():
        return outputs(model.eval(), name, args)


# ------------------------------------------------ the checks (each returns "ok" or "n/a")
def check_sites(name, method):
    c = CASES[name]
    model, sites = converted(name, method)
    assert [s.path for s in sites] == expected_sites(name), [s.path for s in sites]
    assert not any(
        isinstance(m, c.norm_classes) for m in model.modules()
    ), "an original norm is left"
    for s in sites:
        site = model.get_submodule(s.path)
        assert isinstance(site, NormSite) and type(site.norm).__name__ == s.became
        assert s.layer >= -1 and s.role
    if method in ("autonorm", "random"):
        assert [n for n, _ in gated_sites(model)] == expected_sites(name)
    return "ok"


def check_fwd_bwd(name, method):
    model, sites = converted(name, method)
    model.train()
    out = model(**inputs(name, padded=CASES[name].kind != "image"))
    ys = (
        [out]
        if isinstance(out, torch.Tensor)
        else [v for v in out.values() if isinstance(v, torch.Tensor)]
    )
    sum(y.float().pow(2).mean() for y in ys).backward()  # ConvNeXt's last norm feeds the pooler
    assert all(torch.isfinite(y).all() for y in ys)
    for s in sites:
        for pn, p in model.get_submodule(s.path).named_parameters():
            assert p.grad is not None and torch.isfinite(p.grad).all(), f"{s.path}.{pn}"
    return "ok"


def check_batch_indep(name, method):
    model, _ = converted(name, method)
    args = inputs(name)
    a, b = eval_out(model, name, args), eval_out(model, name, change_sample(name, args, 1))
    assert (a[1] - b[1]).abs().max() > 1e-4, "the change did not reach sample 1"
    torch.testing.assert_close(a[0], b[0], atol=1e-5, rtol=0)
    return "ok"


def check_padding(name, method):
    if CASES[name].kind == "image":
        return "n/a"
    model, _ = converted(name, method)
    args = inputs(name, padded=True)
    a, b = eval_out(model, name, args), eval_out(
        model, name, change_sample(name, args, 0, slice(-2, None))
    )
    torch.testing.assert_close(a[0, :-2], b[0, :-2], atol=1e-5, rtol=0)
    return "ok"


def check_causal(name, method):
    if not CASES[name].decoder:
        return "n/a"
    model, sites = converted(name, method)
    assert all(s.causal for s in sites)
    args = inputs(name)
    a, b = eval_out(model, name, args), eval_out(
        model, name, change_sample(name, args, 0, slice(-1, None))
    )
    assert (a[0, -1] - b[0, -1]).abs().max() > 1e-4
    torch.testing.assert_close(a[0, :-1], b[0, :-1], atol=1e-5, rtol=0)
    return "ok"


IDENTITY = {
    False: ("layernorm", "frozen_ln", "film"),
    True: ("rmsnorm",),
}  # methods equal to the old norm at conversion


def check_identity(name, method):
    if method not in IDENTITY[CASES[name].rms]:
        return "n/a"
    model, _ = converted(name, method)
    args = inputs(name, padded=CASES[name].kind != "image")
    a, b = eval_out(base_model(name), name, args), eval_out(model, name, args)
    real = (
        slice(None) if CASES[name].kind == "image" else (0, slice(0, N - 2))
    )  # torch zeroes padded outputs
    torch.testing.assert_close(b[real], a[real], atol=2e-5, rtol=0)
    torch.testing.assert_close(b[1:], a[1:], atol=2e-5, rtol=0)
    return "ok"


def check_affine(name, method):
    if method == "adanorm":
        return "n/a"
    model, sites = converted(name, method)
    base = base_model(name)
    for s in sites:
        old, new = base.get_submodule(s.path), model.get_submodule(s.path).norm
        g = old.weight.detach()
        b = old.bias.detach() if getattr(old, "bias", None) is not None else torch.zeros_like(g)
        if method == "film":
            torch.testing.assert_close(
                new.generator[2].bias.detach(), torch.cat([g - 1, b]), atol=1e-7, rtol=0
            )
            continue
        parts = [new.ln, new.dyt] if method in ("autonorm", "random") else [new]
        for p in parts:
            assert torch.equal(p.weight.detach(), g), s.path
            if method != "rmsnorm":
                assert torch.equal(p.bias.detach(), b), s.path
    return "ok"


def check_state_dict(name, method):
    model, _ = converted(name, method)
    model.train()
    outputs(model, name, inputs(name))  # one training step: τ moves
    if method == "autonorm":
        freeze_selectors(model)
        outputs(model, name, inputs(name, seed=2))
    gate_epoch_summary(model, 1)
    buf = io.BytesIO()
    torch.save(model.state_dict(), buf)
    buf.seek(0)
    fresh, _ = converted(name, method)
    fresh.load_state_dict(torch.load(buf, weights_only=True))
    args = inputs(name, seed=3)
    assert torch.equal(eval_out(model, name, args), eval_out(fresh, name, args))
    for (_, a), (_, b) in zip(gated_sites(model), gated_sites(fresh)):
        assert (a.selector_frozen, a.gate_history) == (b.selector_frozen, b.gate_history)
        if method == "autonorm":
            assert a.train_steps == b.train_steps == 2 and a.current_tau() == b.current_tau()
    return "ok"


def check_determinism(name, method):
    model, _ = converted(name, method)
    args = inputs(name)
    assert torch.equal(eval_out(model, name, args), eval_out(model, name, args))
    return "ok"


def check_atomic(name, method):
    c = CASES[name]
    model = copy.deepcopy(base_model(name))
    model.add_module("zz_unsupported", nn.LayerNorm((2, 4)))  # last in module order
    before = [(n, id(m)) for n, m in model.named_modules()]
    with pytest.raises(ValueError, match="changed nothing"):
        autonormify(model, method, targets=c.targets, rules=c.rules, **method_kw(method))
    assert [(n, id(m)) for n, m in model.named_modules()] == before
    assert not model._forward_pre_hooks and not model._forward_hooks
    return "ok"


def check_checkpointing(name, method):
    if method not in ("autonorm", "random") or not getattr(
        base_model(name), "supports_gradient_checkpointing", False
    ):
        return "n/a"  # ConvNeXt: HF has no checkpointing for it
    grads = []
    for checkpointing in (False, True):  # same seed: same noise, same dropout
        model, _ = converted(name, method)
        if checkpointing:
            getattr(model, "activation_checkpointing_enable", model.gradient_checkpointing_enable)()
        model.train()
        torch.manual_seed(5)
        outputs(model, name, inputs(name, padded=True)).pow(2).mean().backward()
        grads.append({n: p.grad for n, p in model.named_parameters() if p.grad is not None})
    sites = [m for _, m in gated_sites(model)]
    assert sites and all(m._acc_n == B for m in sites), [m._acc_n for m in sites]
    if method == "autonorm":
        assert all(m.train_steps == 1 for m in sites)
    assert grads[0].keys() == grads[1].keys()  # the replay used the same mask and τ
    for n in grads[0]:
        torch.testing.assert_close(grads[1][n], grads[0][n], atol=1e-5, rtol=1e-4)
    return "ok"


RUN = {k: globals()[f"check_{k}"] for k in CHECKS}


@pytest.mark.parametrize("check", CHECKS)
@pytest.mark.parametrize("method", NORM_METHODS)
@pytest.mark.parametrize("name", list(CASES))
def test_autonormify_model(name, method, check):
    assert RUN[check](name, method) in ("ok", "n/a")


# ------------------------------------------------ the failure modes that need their own model
def test_rmsnorm_needs_targets_and_says_so():
    with pytest.raises(
        ValueError, match=r"RMSNorm-like module.*targets=\('layernorm', 'rmsnorm'\)"
    ):
        autonormify(copy.deepcopy(base_model("LlamaModel")), "autonorm")
    with pytest.warns(
        UserWarning, match="left 5 RMSNorm-like"
    ):  # T5 inside a model with a LayerNorm
        autonormify(
            nn.Sequential(copy.deepcopy(base_model("T5EncoderModel")).encoder, nn.LayerNorm(D)),
            "ln",
        )


def test_convnext_layernorm_taken_by_behaviour_without_a_rule():
    "ConvNeXt's LayerNorm has its own forward: its layout (channels first or last) is read off what it computes."
    model, sites = autonormify(copy.deepcopy(base_model("ConvNextModel")), "ln")
    want = [1 if m.data_format == "channels_first" else -1 for m in base_model("ConvNextModel").modules()
            if isinstance(m, ConvNextLayerNorm)]
    assert [s.channel_dim for s in sites if s.source == "ConvNextLayerNorm"] == want and 1 in want and -1 in want
    x = inputs("ConvNextModel")
    torch.testing.assert_close(eval_out(model, "ConvNextModel", x),
                               eval_out(base_model("ConvNextModel"), "ConvNextModel", x), atol=1e-6, rtol=1e-6)


# ------------------------------------------------ LayerNorm subclasses by behaviour (timm's, mirrored)
class TimmLayerNorm(nn.LayerNorm):
    "timm.layers.norm.LayerNorm: channels last, its own forward calling F.layer_norm (timm's fast_norm off)."

    def __init__(self, num_channels, eps=1e-6, affine=True):
        super().__init__(num_channels, eps=eps, elementwise_affine=affine)

    def forward(self, x):
        return nn.functional.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)


class TimmLayerNorm2d(nn.LayerNorm):
    "timm.layers.norm.LayerNorm2d: [B, C, H, W], normalized over C by permuting to channels last and back."

    def __init__(self, num_channels, eps=1e-6, affine=True):
        super().__init__(num_channels, eps=eps, elementwise_affine=affine)

    def forward(self, x):
        x = x.permute(0, 2, 3, 1)
        x = nn.functional.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)
        return x.permute(0, 3, 1, 2)


class DoubledLN(nn.LayerNorm):
    "Negative control: its own forward, another function (2·LN)."

    def forward(self, x):
        return 2 * super().forward(x)


class TinyConvNet(nn.Module):
    "A ConvNeXt-like stem and block: LayerNorm2d on [B, C, H, W], then timm's LayerNorm channels last."

    def __init__(self, norm2d=TimmLayerNorm2d, norm=TimmLayerNorm):
        super().__init__()
        self.stem, self.norm1 = nn.Conv2d(3, 8, 2, stride=2), norm2d(8)
        self.dw, self.norm2 = nn.Conv2d(8, 8, 3, padding=1, groups=8), norm(8)
        self.fc, self.head = nn.Linear(8, 16), norm2d(16)

    def forward(self, x):
        x = self.norm1(self.stem(x))
        y = self.fc(self.norm2(self.dw(x).permute(0, 2, 3, 1)))  # [B, H, W, 16]
        return self.head(y.permute(0, 3, 1, 2))


def _tiny_convnet(**kw):
    torch.manual_seed(0)
    model = TinyConvNet(**kw).eval()
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.LayerNorm):
                m.weight.copy_(1 + 0.3 * torch.randn_like(m.weight))
                m.bias.copy_(0.3 * torch.randn_like(m.bias))
    return model


def test_timm_layernorms_taken_by_behaviour():
    "Identity method: the converted model equals the original to 1e-6; channels first at LayerNorm2d."
    x = torch.randn(2, 3, 16, 16, generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        want = _tiny_convnet()(x)
    model, sites = autonormify(_tiny_convnet(), "layernorm")
    assert [(s.path, s.source, s.channel_dim) for s in sites] == [
        ("norm1", "TimmLayerNorm2d", 1), ("norm2", "TimmLayerNorm", -1), ("head", "TimmLayerNorm2d", 1)]
    with torch.no_grad():
        torch.testing.assert_close(model(x), want, atol=1e-6, rtol=1e-6)
    gated, _ = autonormify(_tiny_convnet(), "autonorm")  # a pooling gate: per sample over H·W, not over C
    with torch.no_grad():
        torch.testing.assert_close(gated.eval()(x)[:1], gated(x[:1]), atol=1e-6, rtol=1e-6)


def test_layernorm_subclass_computing_something_else_is_refused():
    "Negative control: 2·LN is no LayerNorm layout; refused with its class path and the rules= option."
    model = _tiny_convnet(norm=DoubledLN)
    path = re.escape(f"{DoubledLN.__module__}.DoubledLN")
    with pytest.raises(ValueError, match=path + r" subclasses a LayerNorm but its own forward computes something"
                       r" else: it differs .* last axis by 0\.5 .*rules=\{DoubledLN: fn\}"):
        autonormify(model, "layernorm")
    assert isinstance(model.norm1, TimmLayerNorm2d)  # nothing changed
    ok, sites = autonormify(model, "layernorm", rules={DoubledLN: lambda m: None})  # a rule settles it
    assert [s.path for s in sites] == ["norm1", "head"]


class OnePlusLN(nn.LayerNorm):
    "Nemotron's LayerNorm: (1 + weight)."

    def forward(self, x):
        return nn.functional.layer_norm(
            x, self.normalized_shape, self.weight + 1, self.bias, self.eps
        )


def test_one_plus_weight_layernorm_with_a_rule_keeps_its_function():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(D, D), OnePlusLN(D))
    with torch.no_grad():
        model[1].weight.normal_()
    x = torch.randn(2, 5, D)
    want = model(x)
    new, _ = autonormify(
        copy.deepcopy(model),
        "ln",
        rules={OnePlusLN: lambda m: layernorm_spec(m, weight_offset=1.0)},
    )
    torch.testing.assert_close(new(x), want, atol=1e-6, rtol=0)
    with pytest.raises(ValueError, match="OnePlusLN"):
        autonormify(copy.deepcopy(model), "ln")


def test_cached_decoding_is_exact_in_causal_mode():
    "A cached step carries the causal gates' running means (generate's case: test_autonormify_streams)."
    model, _ = converted("GPT2Model", "autonorm")
    ids = torch.randint(1, VOCAB, (1, 4), generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        past = model.eval()(ids, use_cache=True).past_key_values
        step = model(ids[:, -1:], past_key_values=past).last_hidden_state[:, -1]
        full = model(torch.cat([ids, ids[:, -1:]], 1), use_cache=False).last_hidden_state[:, -1]
    torch.testing.assert_close(step, full, atol=1e-5, rtol=1e-5)  # float32, same ops reordered


def test_torch_encoder_causal_by_hand_and_bf16():
    torch.manual_seed(0)
    enc, sites = autonormify(_te(True, True), "autonorm", causal=True)
    assert all(s.causal for s in sites)
    x, mask = torch.randn(2, N, D), nn.Transformer.generate_square_subsequent_mask(N)
    x2 = x.clone()
    x2[:, -1] += 3.0
    with torch.no_grad():
        a, b = enc.eval()(x, mask=mask, is_causal=True), enc(x2, mask=mask, is_causal=True)
    torch.testing.assert_close(a[:, :-1], b[:, :-1], atol=1e-5, rtol=0)
    bf, _ = autonormify(
        nn.Sequential(nn.Linear(D, D), nn.LayerNorm(D, elementwise_affine=False)).to(torch.bfloat16)
    )
    assert bf[1].norm.ln.weight.dtype == torch.bfloat16


# ------------------------------------------------ the table for the closing note
def table() -> str:
    "The model × method × check table in markdown: ✓ passed, n/a not applicable, FAIL (why)."
    lines = ["| model | method | " + " | ".join(CHECKS) + " |", "|---|---|" + "---|" * len(CHECKS)]
    for name in CASES:
        for method in NORM_METHODS:
            cells = []
            for check in CHECKS:
                try:
                    cells.append({"ok": "✓", "n/a": "n/a"}[RUN[check](name, method)])
                except Exception as e:
                    cells.append(f"FAIL: {type(e).__name__}")
            lines.append(f"| {name} | {method} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(table())
    sys.exit(0)


def test_gate_logger_rows_name_third_party_sites():
    from autonorm_explorer.norms.gates import GateLogger

    model, sites = converted("BertModel", "autonorm")
    model.train()
    outputs(model, "BertModel", inputs("BertModel", padded=True))
    log = GateLogger()
    log.on_step_end(step=1, model=model)
    log.on_epoch_end(epoch=1, model=model)
    rows = log.epoch_log
    assert rows.site.tolist() == expected_sites("BertModel") == log.step_log.site.tolist()
    # oracle from the paths: embeddings before block 0, then encoder.layer.<k>
    assert rows.layer.tolist() == [-1, 0, 0, 1, 1]
    assert rows.role.tolist() == ["embed"] + ["attention.output.LayerNorm", "output.LayerNorm"] * 2
    assert (rows.n == B).all()


def test_package_models_keep_their_layer_and_role():
    from autonorm_explorer.models.backbones import ViTLite

    torch.manual_seed(0)
    model, sites = autonormify(ViTLite(10, norm="ln", dim=16, depth=2, heads=2), "autonorm")
    assert [(s.layer, s.role) for s in sites] == [(0, "attn"), (0, "mlp"), (1, "attn"), (1, "mlp"),
                                                  (2, "final")]
    assert model(torch.randn(2, 3, 32, 32)).shape == (2, 10)             # it calls norm(x, mask)
