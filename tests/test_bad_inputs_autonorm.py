"""Bad inputs to the AutoNorm half's public entry points: norms, the registry, AutoNorm and its baselines,
AutoNorm-S, the gate logs, the backbones and `autonormify`. Each row must fail clearly where the value enters."""
import math

import pandas as pd
import pytest
import torch
import torch.nn as nn

from bad_inputs import Bad, case_ids, check
from autonorm_explorer.core import seeds

# The tensors below are drawn when the module is imported, before conftest seeds each test: seed them
# here too (the draws inside the rows' lambdas run under conftest's per-test seed).
torch.manual_seed(seeds.test_seed())
from autonorm_explorer.norms.registry import canonical_norm, make_norm, normalize
from autonorm_explorer.norms.layers import AdaNorm, DyT, FiLMNorm, LayerNorm, RMSNorm
from autonorm_explorer.norms.autonorm import (AutoNorm, FrozenLN, NormSelector, RandomSelector, TauAnneal, gate_epoch_summary,
                                        gated_sites, gumbel_softmax_weights, set_tau)
from autonorm_explorer.norms.schedule import GateFreezer, drop_from_optimizer, freeze_selectors, selector_parameters
from autonorm_explorer.norms.gates import (GateLogger, plot_entropy, plot_grad_variance, plot_w_dyt_heatmap,
                                     selector_grad_variance, w_dyt_table)
from autonorm_explorer.models.backbones import (Attention, Block, DropPath, Encoder, LayerScale, TabularTransformer, TextEncoder,
                                      ViTLite)
from autonorm_explorer.norms.convert import NormSpec, autonormify, build_replacement, layernorm_spec, padding_mask

NAN = float("nan")
SMALL = dict(dim=16, depth=1, heads=2)                       # backbones small enough to build in milliseconds


def gated():
    return nn.Sequential(nn.Linear(4, 8), AutoNorm(8))


def text():
    return TextEncoder(50, 3, **SMALL)


def gate_log():
    return pd.DataFrame([dict(epoch=1, site="1", layer=1, role="", method="autonorm", w_dyt=0.5, entropy=0.6,
                              entropy_tau=0.3, n=4, frozen=False)])


def loss(m, b):
    return m(b).pow(2).mean()


BATCHES = [torch.randn(3, 4), torch.randn(3, 4)]
ALLOWED_NORMS = ("'layernorm'", "'frozen_dyt'", "'ln'", "'rms'")   # the message lists the names and old spellings

CASES = [
    # ------------------------------------------------------------------ the registry and the norm layers
    Bad("make_norm", "unknown name", lambda: make_norm("batchnorm", 8), ("'batchnorm'",) + ALLOWED_NORMS),
    Bad("make_norm", "name None", lambda: make_norm(None, 8), ("None", "'layernorm'"), raises=(TypeError,)),
    Bad("make_norm", "name a tensor", lambda: make_norm(torch.zeros(2), 8), ("tensor", "'layernorm'"),
        raises=(TypeError,)),
    Bad("make_norm", "option the layer does not take", lambda: make_norm("ln", 8, tau=0.5), ("'layernorm'", "tau")),
    Bad("make_norm", "dim=0", lambda: make_norm("layernorm", 0), ("dim=0",)),
    Bad("make_norm", "dim a string", lambda: make_norm("dyt", "8"), ("dim='8'",)),
    Bad("canonical_norm", "kind where only kinds fit", lambda: canonical_norm("dyt", "norm", ("layernorm", "rmsnorm")),
        ("'dyt'", "'rmsnorm'", "'rms'")),
    Bad("normalize", "unknown kind", lambda: normalize(torch.randn(2, 4), "groupnorm"), ("'groupnorm'", "'layernorm'")),
    Bad("LayerNorm", "dim=0", lambda: LayerNorm(0), ("dim=0",)),
    Bad("LayerNorm", "dim=-3", lambda: LayerNorm(-3), ("dim=-3",)),
    Bad("LayerNorm", "eps=0", lambda: LayerNorm(4, eps=0), ("eps=0",)),
    Bad("LayerNorm", "eps NaN", lambda: LayerNorm(4, eps=NAN), ("eps=nan",)),
    Bad("LayerNorm", "too big for memory", lambda: LayerNorm(10**10), ("LayerNorm(dim=10000000000)", "GiB")),
    Bad("LayerNorm", "input of the wrong width", lambda: LayerNorm(4)(torch.randn(2, 3)), ("dim=4", "(2, 3)")),
    Bad("RMSNorm", "dim=0", lambda: RMSNorm(0), ("dim=0",)),
    Bad("RMSNorm", "eps=-1", lambda: RMSNorm(4, eps=-1), ("eps=-1",)),
    Bad("DyT", "dim=0", lambda: DyT(0), ("dim=0",)),
    Bad("DyT", "alpha_init NaN", lambda: DyT(4, alpha_init=NAN), ("alpha_init=nan",)),
    Bad("DyT", "alpha_init=-1", lambda: DyT(4, alpha_init=-1), ("alpha_init=-1",)),
    Bad("AdaNorm", "dim=1 (unbiased std needs 2)", lambda: AdaNorm(1), ("dim=1",)),
    Bad("AdaNorm", "k=-0.1", lambda: AdaNorm(4, k=-0.1), ("k=-0.1",)),
    Bad("FiLMNorm", "hidden=0", lambda: FiLMNorm(4, hidden=0), ("hidden=0",)),
    Bad("FiLMNorm", "dim=0", lambda: FiLMNorm(0), ("dim=0",)),
    Bad("FiLMNorm", "too big for memory", lambda: FiLMNorm(10**6), ("FiLMNorm(dim=1000000)", "GiB")),
    # ------------------------------------------------------------------ AutoNorm, its selector and baselines
    Bad("NormSelector", "dim=0", lambda: NormSelector(0), ("dim=0",)),
    Bad("NormSelector", "causal='no'", lambda: NormSelector(4, causal="no"), ("causal='no'", "True, False")),
    Bad("NormSelector", "n_choices=1", lambda: NormSelector(4, n_choices=1), ("n_choices=1",)),
    Bad("gumbel_softmax_weights", "tau=0", lambda: gumbel_softmax_weights(torch.zeros(2, 2), 0), ("tau=0",)),
    Bad("gumbel_softmax_weights", "tau NaN", lambda: gumbel_softmax_weights(torch.zeros(2, 2), NAN), ("tau=nan",)),
    Bad("AutoNorm", "dim=0", lambda: AutoNorm(0), ("dim=0",)),
    Bad("AutoNorm", "too big for memory (its selector)", lambda: AutoNorm(10**6), ("NormSelector(dim=1000000)", "GiB")),
    Bad("AutoNorm", "tau=0", lambda: AutoNorm(4, tau=0), ("tau=0",)),
    Bad("AutoNorm", "tau=-1", lambda: AutoNorm(4, tau=-1), ("tau=-1",)),
    Bad("AutoNorm", "tau NaN", lambda: AutoNorm(4, tau=NAN), ("tau=nan",)),
    Bad("AutoNorm", "tau inf", lambda: AutoNorm(4, tau=math.inf), ("tau=inf",)),
    Bad("AutoNorm", "unknown eval_mode", lambda: AutoNorm(4, eval_mode="hard"), ("eval_mode='hard'", "'argmax'")),
    Bad("AutoNorm", "tau_schedule not callable", lambda: AutoNorm(4, tau_schedule=0.5), ("tau_schedule=0.5",),
        raises=(TypeError,)),
    Bad("AutoNorm", "hard='no'", lambda: AutoNorm(4, hard="no"), ("hard='no'",), raises=(TypeError,)),
    Bad("AutoNorm", "eps=0 (of its LayerNorm)", lambda: AutoNorm(4, eps=0), ("eps=0",)),
    Bad("AutoNorm", "input of the wrong width", lambda: AutoNorm(4)(torch.randn(2, 3, 5)), ("dim=4",)),
    Bad("RandomSelector", "dim=0", lambda: RandomSelector(0), ("dim=0",)),
    Bad("RandomSelector", "sample_at_eval='yes'", lambda: RandomSelector(4, sample_at_eval="yes"),
        ("sample_at_eval='yes'",), raises=(TypeError,)),
    Bad("FrozenLN", "dim=0", lambda: FrozenLN(0), ("dim=0",)),
    Bad("TauAnneal", "tau0=0", lambda: TauAnneal(tau0=0), ("tau0=0",)),
    Bad("TauAnneal", "rate NaN", lambda: TauAnneal(rate=NAN), ("rate=nan",)),
    Bad("TauAnneal", "every=0", lambda: TauAnneal(every=0), ("every=0",)),
    Bad("set_tau", "model None", lambda: set_tau(None, 1.0), ("model=None", "Module"), raises=(TypeError,)),
    Bad("set_tau", "tau=0", lambda: set_tau(gated(), 0), ("tau=0",)),
    Bad("gated_sites", "model a string", lambda: gated_sites("vit"), ("model='vit'", "Module"), raises=(TypeError,)),
    Bad("gate_epoch_summary", "epoch=-1", lambda: gate_epoch_summary(gated(), -1), ("epoch=-1",)),
    Bad("gate_epoch_summary", "epoch=1.5", lambda: gate_epoch_summary(gated(), 1.5), ("epoch=1.5",)),
    Bad("gate_epoch_summary", "model None", lambda: gate_epoch_summary(None, 1), ("model=None",), raises=(TypeError,)),
    # ------------------------------------------------------------------ AutoNorm-S
    Bad("GateFreezer", "t_freeze=0", lambda: GateFreezer(t_freeze=0), ("t_freeze=0",)),
    Bad("GateFreezer", "t_freeze=2.5", lambda: GateFreezer(t_freeze=2.5), ("t_freeze=2.5",)),
    Bad("GateFreezer", "t_freeze a string", lambda: GateFreezer(t_freeze="10"), ("t_freeze='10'",)),
    Bad("GateFreezer", "t_freeze True", lambda: GateFreezer(t_freeze=True), ("t_freeze=True",)),
    Bad("GateFreezer", "eps_h=0", lambda: GateFreezer(eps_h=0), ("eps_h=0", "0.693")),
    Bad("GateFreezer", "eps_h above ln 2", lambda: GateFreezer(eps_h=0.7), ("eps_h=0.7", "0.693")),
    Bad("GateFreezer", "eps_h NaN", lambda: GateFreezer(eps_h=NAN), ("eps_h=nan",)),
    Bad("GateFreezer", "eps_h=-0.1", lambda: GateFreezer(eps_h=-0.1), ("eps_h=-0.1",)),
    Bad("GateFreezer", "unknown freeze_entropy", lambda: GateFreezer(freeze_entropy="probs"),
        ("freeze_entropy='probs'", "'logits'", "'tau'")),
    Bad("GateFreezer", "drop_noise='no'", lambda: GateFreezer(drop_noise="no"), ("drop_noise='no'",),
        raises=(TypeError,)),
    Bad("GateFreezer.on_epoch_end", "epoch=0", lambda: GateFreezer().on_epoch_end(epoch=0, model=gated()),
        ("epoch=0",)),
    Bad("GateFreezer.on_epoch_end", "model None", lambda: GateFreezer().on_epoch_end(epoch=1, model=None),
        ("model=None",), raises=(TypeError,)),
    Bad("freeze_selectors", "model None", lambda: freeze_selectors(None), ("model=None",), raises=(TypeError,)),
    Bad("freeze_selectors", "optimizer a string", lambda: freeze_selectors(gated(), "adamw"),
        ("optimizer='adamw'", "Optimizer"), raises=(TypeError,)),
    Bad("freeze_selectors", "drop_noise='no'", lambda: freeze_selectors(gated(), drop_noise="no"),
        ("drop_noise='no'",), raises=(TypeError,)),
    Bad("drop_from_optimizer", "optimizer None", lambda: drop_from_optimizer(None, []), ("optimizer=None",),
        raises=(TypeError,)),
    Bad("selector_parameters", "model a dict", lambda: selector_parameters({}), ("model={}",), raises=(TypeError,)),
    # ------------------------------------------------------------------ gate logs and plots
    Bad("GateLogger", "every=0", lambda: GateLogger(every=0), ("every=0",)),
    Bad("GateLogger", "path a number", lambda: GateLogger(path=5), ("path=5",), raises=(TypeError,)),
    Bad("GateLogger.on_step_end", "step=-1", lambda: GateLogger().on_step_end(step=-1, model=gated()), ("step=-1",)),
    Bad("GateLogger.on_epoch_end", "model None", lambda: GateLogger().on_epoch_end(epoch=1, model=None),
        ("model=None",), raises=(TypeError,)),
    Bad("GateLogger.load_state_dict", "empty state", lambda: GateLogger().load_state_dict({}), ("'steps'", "'epochs'")),
    Bad("GateLogger.load_state_dict", "state None", lambda: GateLogger().load_state_dict(None), ("state=None",),
        raises=(TypeError,)),
    Bad("plot_entropy", "log a path", lambda: plot_entropy("gates.jsonl"), ("epoch_log='gates.jsonl'", "DataFrame"),
        raises=(TypeError,)),
    Bad("plot_entropy", "unknown column", lambda: plot_entropy(gate_log(), column="H"), ("column='H'", "'entropy'")),
    Bad("plot_entropy", "log without the column", lambda: plot_entropy(gate_log().drop(columns="entropy")),
        ("['entropy']",)),
    Bad("plot_entropy", "eps_h above ln 2", lambda: plot_entropy(gate_log(), eps_h=1.0), ("eps_h=1.0",)),
    Bad("w_dyt_table", "by='epoch'", lambda: w_dyt_table(gate_log(), by="epoch"), ("by='epoch'", "'layer'")),
    Bad("w_dyt_table", "log None", lambda: w_dyt_table(None), ("epoch_log=None",), raises=(TypeError,)),
    Bad("plot_w_dyt_heatmap", "log a list", lambda: plot_w_dyt_heatmap([1, 2]), ("epoch_log=[1, 2]",),
        raises=(TypeError,)),
    Bad("selector_grad_variance", "model without AutoNorm",
        lambda: selector_grad_variance(nn.Linear(4, 4), loss, BATCHES), ("no AutoNorm",)),
    Bad("selector_grad_variance", "one batch", lambda: selector_grad_variance(gated(), loss, BATCHES[:1]),
        ("at least 2", "1")),
    Bad("selector_grad_variance", "batches a generator", lambda: selector_grad_variance(gated(), loss, iter(BATCHES)),
        ("batches=", "Sequence"), raises=(TypeError,)),
    Bad("selector_grad_variance", "loss_fn None", lambda: selector_grad_variance(gated(), None, BATCHES),
        ("loss_fn=None",), raises=(TypeError,)),
    Bad("selector_grad_variance", "a tau of 0 among good ones", lambda: selector_grad_variance(gated(), loss, BATCHES,
        taus=(0.5, 0)), ("tau=0",)),
    Bad("plot_grad_variance", "table None", lambda: plot_grad_variance(None), ("df=None",), raises=(TypeError,)),
    # ------------------------------------------------------------------ the backbones
    Bad("ViTLite", "heads=0", lambda: ViTLite(10, heads=0), ("heads=0",)),
    Bad("ViTLite", "heads=-4", lambda: ViTLite(10, heads=-4), ("heads=-4",)),
    Bad("ViTLite", "dim not divisible by heads", lambda: ViTLite(10, dim=30, heads=4),
        ("dim=30", "heads=4", "[1, 2, 3")),
    Bad("ViTLite", "unknown norm", lambda: ViTLite(10, norm="bn"), ("norm='bn'",) + ALLOWED_NORMS),
    Bad("ViTLite", "unknown final_norm", lambda: ViTLite(10, final_norm="bn"), ("final_norm='bn'", "'layernorm'")),
    Bad("ViTLite", "unknown preset", lambda: ViTLite(10, preset="huge"), ("preset='huge'", "'paper'")),
    Bad("ViTLite", "img_size not divisible by the patch", lambda: ViTLite(10, img_size=30), ("img_size=30",)),
    Bad("ViTLite", "unknown option", lambda: ViTLite(10, widht=3), ("widht",)),
    Bad("ViTLite", "too big for memory", lambda: ViTLite(10, dim=100_000, heads=4), ("dim=100000", "GiB")),
    Bad("ViTLite", "num_classes=0", lambda: ViTLite(0), ("num_classes=0",)),
    Bad("ViTLite", "depth=0", lambda: ViTLite(10, depth=0), ("depth=0",)),
    Bad("ViTLite", "images of the wrong size", lambda: ViTLite(10, **SMALL)(torch.randn(2, 3, 16, 16)),
        ("(2, 3, 16, 16)", "[B, 3, 32, 32]")),
    Bad("ViTLite", "images as a list", lambda: ViTLite(10, **SMALL)([[0.0]]), ("x=[[0.0]]",), raises=(TypeError,)),
    Bad("TextEncoder", "token id beyond the vocabulary", lambda: text()(torch.tensor([[1, 50]])),
        ("token id 50", "vocab_size=50")),
    Bad("TextEncoder", "negative token id", lambda: text()(torch.tensor([[-1, 3]])), ("token id -1", "vocab_size=50")),
    Bad("TextEncoder", "float tokens", lambda: text()(torch.zeros(2, 3)), ("int64", "torch.float32")),
    Bad("TextEncoder", "tokens as a list", lambda: text()([[1, 2]]), ("tokens=[[1, 2]]",), raises=(TypeError,)),
    Bad("TextEncoder", "mask of the wrong shape", lambda: text()(torch.ones(2, 3, dtype=torch.long),
        torch.ones(2, 2, dtype=torch.bool)), ("mask must be bool (2, 3)",)),
    Bad("TextEncoder", "a sequence with no real token", lambda: text()(torch.ones(2, 3, dtype=torch.long),
        torch.zeros(2, 3, dtype=torch.bool)), ("at least one real token",)),
    Bad("TextEncoder", "sequence longer than max_len", lambda: TextEncoder(50, 3, max_len=4, **SMALL)(
        torch.ones(1, 5, dtype=torch.long)), ("T=5", "max_len=4")),
    Bad("TextEncoder", "heads=0", lambda: TextEncoder(50, 3, heads=0), ("heads=0",)),
    Bad("TextEncoder", "dim not divisible by heads", lambda: TextEncoder(50, 3, dim=10, heads=4),
        ("dim=10", "heads=4")),
    Bad("TextEncoder", "vocabulary too big for memory", lambda: TextEncoder(10**9, 3, **SMALL),
        ("vocab_size=1000000000", "GiB")),
    Bad("TextEncoder", "vocab_size=0", lambda: TextEncoder(0, 3, **SMALL), ("vocab_size=0",)),
    Bad("TextEncoder", "unknown head", lambda: TextEncoder(50, 3, head="lm"), ("head='lm'", "'tagging'")),
    Bad("TextEncoder", "unknown option", lambda: TextEncoder(50, 3, drop=0.1), ("drop",)),
    Bad("TabularTransformer", "n_features=0", lambda: TabularTransformer(0), ("n_features=0",)),
    Bad("TabularTransformer", "heads=-4", lambda: TabularTransformer(5, heads=-4), ("heads=-4",)),
    Bad("TabularTransformer", "too many features for memory", lambda: TabularTransformer(10**9, **SMALL),
        ("n_features=1000000000", "GiB")),
    Bad("TabularTransformer", "dim=0", lambda: TabularTransformer(5, dim=0), ("dim=0",)),
    Bad("TabularTransformer", "wrong feature count", lambda: TabularTransformer(5, **SMALL)(torch.randn(2, 6)),
        ("float [B, 5]", "(2, 6)")),
    Bad("TabularTransformer", "features as a list", lambda: TabularTransformer(5, **SMALL)([1.0] * 5), ("x=[1.0",),
        raises=(TypeError,)),
    Bad("Encoder", "depth=0", lambda: Encoder(16, 0, 4), ("depth=0",)),
    Bad("Encoder", "drop_path=1", lambda: Encoder(16, 2, 4, drop_path=1.0), ("drop_path=1.0",)),
    Bad("Block", "unknown layout", lambda: Block(16, 4, layout="post"), ("layout='post'", "'cct'")),
    Bad("Block", "unknown norm", lambda: Block(16, 4, norm="groupnorm"), ("norm='groupnorm'", "'ln'")),
    Bad("Attention", "dim not divisible by heads", lambda: Attention(10, 4), ("dim=10", "heads=4")),
    Bad("Attention", "heads=0", lambda: Attention(16, 0), ("heads=0",)),
    Bad("Attention", "attn_drop=1", lambda: Attention(16, 4, attn_drop=1.0), ("attn_drop=1.0",)),
    Bad("DropPath", "p=1", lambda: DropPath(1.0), ("drop_path=1.0",)),
    Bad("DropPath", "p NaN", lambda: DropPath(NAN), ("drop_path=nan",)),
    Bad("LayerScale", "init=0", lambda: LayerScale(4, init=0), ("layer_scale_init=0",)),
    Bad("LayerScale", "dim=0", lambda: LayerScale(0), ("dim=0",)),
    # ------------------------------------------------------------------ autonormify
    Bad("autonormify", "model None", lambda: autonormify(None), ("model=None", "Module"), raises=(TypeError,)),
    Bad("autonormify", "model a string", lambda: autonormify("bert-base-uncased"), ("model='bert-base-uncased'",),
        raises=(TypeError,)),
    Bad("autonormify", "model a state_dict", lambda: autonormify(nn.LayerNorm(4).state_dict()), ("model=", "Module"),
        raises=(TypeError,)),
    Bad("autonormify", "unknown method", lambda: autonormify(nn.Sequential(nn.LayerNorm(4)), "batchnorm"),
        ("method='batchnorm'",) + ALLOWED_NORMS),
    Bad("autonormify", "unknown target", lambda: autonormify(nn.Sequential(nn.LayerNorm(4)), targets=("groupnorm",)),
        ("targets='groupnorm'", "'rmsnorm'")),
    Bad("autonormify", "no targets", lambda: autonormify(nn.Sequential(nn.LayerNorm(4)), targets=()), ("targets=()",)),
    Bad("autonormify", "a model with no norm", lambda: autonormify(nn.Sequential(nn.Linear(4, 4))),
        ("found no norm site",)),
    Bad("autonormify", "rules not classes", lambda: autonormify(nn.Sequential(nn.LayerNorm(4)), rules={"LN": len}),
        ("rules", "'LN'")),
    Bad("autonormify", "option the layers do not take", lambda: autonormify(nn.Sequential(nn.LayerNorm(4)), tau=0),
        ("tau=0",)),
    Bad("build_replacement", "unknown method", lambda: build_replacement(layernorm_spec(nn.LayerNorm(4)), "bn"),
        ("method='bn'", "'layernorm'")),
    Bad("NormSpec", "unknown kind", lambda: NormSpec("groupnorm", 4, 1e-5), ("kind='groupnorm'", "'rmsnorm'")),
    Bad("padding_mask", "a model autonormify did not convert", lambda: padding_mask(nn.Linear(2, 2),
        torch.ones(1, 2, dtype=torch.bool)).__enter__(), ("no site converted by autonormify",)),
]


@pytest.mark.parametrize("case", CASES, ids=case_ids(CASES))
def test_bad_input(case):
    check(case)
