"""Bad inputs to the rank half's public API: each row calls one entry point with one bad argument.

The walker (`tests/bad_inputs.py`) checks that the error is a clear one (`ValueError`, `TypeError`, an
`OSError`), never an `AttributeError`/`KeyError`/`IndexError`/`RuntimeError` from inside, and that its
message names what `names` lists: the bad value and the allowed set or range.
Every row is cheap (no training, no profile of a big network): the whole table runs in a few seconds.
"""
import math
import os
import sys
from pathlib import Path

import pytest
import torch
from torch import nn

sys.path.insert(0, str(Path(__file__).parent))
from bad_inputs import Bad, case_ids, check  # noqa: E402
from autonorm_explorer.core import seeds

# The tensors below are drawn when the module is imported, before conftest seeds each test: seed them
# here too (the draws inside the rows' lambdas run under conftest's per-test seed).
torch.manual_seed(seeds.test_seed())

from autonorm_explorer.core import devices, files  # noqa: E402
from autonorm_explorer.rank.spectra import erank, erank_from_svals, mp_density, mp_edges, mp_threshold, survival_rate  # noqa: E402
from autonorm_explorer.rank.resmlp import ResMLPConfig, ResidualBlock, ResidualMLP, sample_weights  # noqa: E402
from autonorm_explorer.rank.propagation import input_generator, representation_svals, sample_inputs  # noqa: E402
from autonorm_explorer.rank.paths import block_jacobian_parts, meanfield_weights, order_decomposition, path_orders  # noqa: E402
from autonorm_explorer.rank.branch import branch_jacobians, branch_rank_sweep  # noqa: E402
from autonorm_explorer.rank.blocks import block_rank_profile, residual_blocks, stream_input  # noqa: E402
from autonorm_explorer.models.backbones import TextEncoder, ViTLite  # noqa: E402
from autonorm_explorer.course import checking, claims, exercises_depth  # noqa: E402

NAN, INF = float("nan"), float("inf")
CFG = ResMLPConfig(width=8, depth=3)
W = sample_weights(CFG)
S, B = block_jacobian_parts(CFG)
VIT = ViTLite(3, in_chans=1, img_size=4, preset="vit_lite_2_4", dim=8, heads=2, patch_size=2)
X4 = torch.randn(2, 1, 4, 4)
TXT = TextEncoder(20, 3, dim=8, depth=2, heads=2, max_len=8).eval()
MASK = torch.ones(2, 5, dtype=torch.bool)
T5 = __import__("transformers").T5Model(__import__("transformers").T5Config(
    d_model=8, d_kv=4, d_ff=16, num_layers=1, num_heads=2, vocab_size=20)).eval()      # two streams
T5_INPUTS = dict(input_ids=torch.randint(0, 20, (1, 4)), decoder_input_ids=torch.randint(0, 20, (1, 3)))


class _FailsBeforeItsBlocks(torch.nn.Module):
    "A residual model whose input projection rejects the input's width (a RuntimeError inside torch)."
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(4, 8)
        self.blocks = torch.nn.ModuleList([torch.nn.Linear(8, 8)])

    def forward(self, x):
        h = self.proj(x)
        for block in self.blocks:
            h = h + block(h)
        return h


FAILS_EARLY = _FailsBeforeItsBlocks()
CLAIM_99 = "TR-" + "99"      # built, so that no text of the package cites an id outside the claims table


def config(**kw):
    "A `ResMLPConfig` call with one bad field (the rest as CFG)."
    return lambda: ResMLPConfig(**{**dict(width=8, depth=3), **kw})


CONFIG_CASES = [
    Bad("ResMLPConfig", "width a string", config(width="64"), ("width='64'", "integer")),
    Bad("ResMLPConfig", "width not whole", config(width=2.5), ("width=2.5", "integer")),
    Bad("ResMLPConfig", "width below 2", config(width=1), ("width=1", "[2, inf)")),
    Bad("ResMLPConfig", "width None", config(width=None), ("width=None", "integer")),
    Bad("ResMLPConfig", "width too big for memory", config(width=100000, depth=16),
        ("width=100000", "would take 9.3 TiB", "limit")),
    Bad("ResMLPConfig", "depth zero", config(depth=0), ("depth=0", "[1, inf)")),
    Bad("ResMLPConfig", "depth a bool", config(depth=True), ("depth=True", "integer")),
    Bad("ResMLPConfig", "beta NaN", config(beta=NAN), ("beta=nan", "finite")),
    Bad("ResMLPConfig", "beta inf", config(beta=INF), ("beta=inf", "finite")),
    Bad("ResMLPConfig", "beta a string", config(beta="big"), ("beta='big'", "real number")),
    Bad("ResMLPConfig", "alpha NaN", config(alpha=NAN), ("alpha=nan", "finite")),
    Bad("ResMLPConfig", "alpha a tensor", config(alpha=torch.ones(2)), ("alpha=tensor", "real number")),
    Bad("ResMLPConfig", "placement unknown", config(placement="middle"), ("placement='middle'", "'pre'", "'output'")),
    Bad("ResMLPConfig", "placement None", config(placement=None), ("placement=None", "'post'")),
    Bad("ResMLPConfig", "branch unknown", config(branch="three"), ("branch='three'", "'single'", "'two'")),
    Bad("ResMLPConfig", "expansion zero", config(expansion=0), ("expansion=0", "(0, inf)")),
    Bad("ResMLPConfig", "expansion negative", config(expansion=-1.0), ("expansion=-1.0", "(0, inf)")),
    Bad("ResMLPConfig", "expansion NaN", config(expansion=NAN), ("expansion=nan", "finite")),
    Bad("ResMLPConfig", "expansion leaves no hidden unit", config(expansion=1e-3), ("expansion=0.001", "hidden width")),
    Bad("ResMLPConfig", "activation unknown", config(activation="softplus"),
        ("activation='softplus'", "'relu'", "'silu'")),
    Bad("ResMLPConfig", "norm unknown", config(norm="batchnorm"), ("norm='batchnorm'", "'layernorm'", "'rmsnorm'")),
    Bad("ResMLPConfig", "projection a string", config(projection="yes"), ("projection='yes'", "True, False")),
    Bad("ResMLPConfig", "projection an int", config(projection=1), ("projection=1", "True, False")),
    Bad("ResMLPConfig", "seed negative", config(seed=-1), ("seed=-1", "[0, 9223372036854775807]")),
    Bad("ResMLPConfig", "seed beyond 2**63-1", config(seed=2**63),
        ("seed=9223372036854775808", "9223372036854775807]")),
    Bad("ResMLPConfig", "eps negative", config(eps=-1e-3), ("eps=-0.001", "[0, inf)")),
    Bad("ResMLPConfig", "eps NaN", config(eps=NAN), ("eps=nan", "finite")),
    Bad("ResMLPConfig", "in_features zero", config(in_features=0), ("in_features=0", "[1, inf)")),
    Bad("ResMLPConfig", "out_features not whole", config(out_features=1.5), ("out_features=1.5", "integer")),
]

MODEL_CASES = [
    Bad("sample_weights", "cfg None", lambda: sample_weights(None), ("cfg=None", "ResMLPConfig")),
    Bad("sample_weights", "cfg a string", lambda: sample_weights("width=16"), ("cfg='width=16'", "ResMLPConfig")),
    Bad("sample_weights", "cfg a dict", lambda: sample_weights(dict(width=16)), ("cfg={'width': 16}", "ResMLPConfig")),
    Bad("sample_weights", "device unknown", lambda: sample_weights(CFG, device="tpu9"), ("device='tpu9'", "'cpu'")),
    Bad("ResMLPWeights.check_matches", "weights for another width",
        lambda: W.check_matches(ResMLPConfig(width=16, depth=3)), ("width=8", "width=16", "sample_weights(cfg)")),
    Bad("ResMLPWeights.check_matches", "cfg a string", lambda: W.check_matches("cfg"), ("cfg='cfg'", "ResMLPConfig")),
    Bad("ResidualMLP", "cfg a string", lambda: ResidualMLP("width=16"), ("cfg='width=16'", "ResMLPConfig")),
    Bad("ResidualMLP", "weights a tensor", lambda: ResidualMLP(CFG, weights=torch.zeros(3)),
        ("weights=tensor", "ResMLPWeights")),
    Bad("ResidualMLP", "weights for another depth", lambda: ResidualMLP(ResMLPConfig(width=8, depth=2), W),
        ("depth=3", "depth=2")),
    Bad("ResidualMLP", "dtype an integer type", lambda: ResidualMLP(CFG, dtype=torch.int64),
        ("dtype=torch.int64", "float64")),
    Bad("ResidualMLP", "dtype a string", lambda: ResidualMLP(CFG, dtype="float64"), ("dtype='float64'", "dtype")),
    Bad("ResidualMLP.load_weights", "weights None", lambda: ResidualMLP(CFG).load_weights(None),
        ("weights=None", "ResMLPWeights")),
    Bad("ResidualBlock", "cfg a string", lambda: ResidualBlock("width=8"), ("cfg='width=8'", "ResMLPConfig")),
]

SPECTRA_CASES = [
    Bad("erank_from_svals", "a NaN singular value", lambda: erank_from_svals(torch.tensor([1.0, NAN])),
        ("nan", "finite", "[0, inf)")),
    Bad("erank_from_svals", "a negative singular value", lambda: erank_from_svals(torch.tensor([1.0, -0.5])),
        ("-0.5", "[0, inf)")),
    Bad("erank_from_svals", "an infinite singular value", lambda: erank_from_svals(torch.tensor([INF, 1.0])),
        ("inf", "[0, inf)")),
    Bad("erank_from_svals", "a list", lambda: erank_from_svals([3.0, 1.0]), ("s=[3.0, 1.0]", "Tensor")),
    Bad("erank_from_svals", "a scalar tensor", lambda: erank_from_svals(torch.tensor(2.0)), ("s=2.0", "s[..., r]")),
    Bad("erank_from_svals", "complex values", lambda: erank_from_svals(torch.ones(2, dtype=torch.complex64)),
        ("complex64", "real")),
    Bad("erank_from_svals", "kind unknown", lambda: erank_from_svals(torch.ones(3), "eig"), ("kind='eig'", "'sigma'")),
    Bad("erank", "a string", lambda: erank("abc"), ("A must be a real matrix", "str")),
    Bad("erank", "NaN entries", lambda: erank(torch.tensor([[1.0, NAN]])), ("NaN or Inf",)),
    Bad("erank", "a vector", lambda: erank(torch.ones(3)), ("at least 2 dims", "(3,)")),
    Bad("erank", "an empty matrix", lambda: erank(torch.ones(0, 3)), ("empty", "(0, 3)")),
    Bad("erank", "kind unknown", lambda: erank(torch.eye(2), kind="sigma3"), ("kind='sigma3'", "'sigma2'")),
    Bad("erank", "normalize a string", lambda: erank(torch.eye(2), normalize="yes"),
        ("normalize='yes'", "True, False")),
    Bad("survival_rate", "activation unknown", lambda: survival_rate("softplus"), ("activation='softplus'", "'gelu'")),
    Bad("survival_rate", "q zero", lambda: survival_rate("relu", q=0), ("q=0", "(0, inf)")),
    Bad("survival_rate", "q NaN", lambda: survival_rate("relu", q=NAN), ("q=nan", "finite")),
    Bad("survival_rate", "n_nodes one", lambda: survival_rate("relu", n_nodes=1), ("n_nodes=1", "[2, 300]")),
    Bad("survival_rate", "n_nodes beyond 300", lambda: survival_rate("relu", n_nodes=400), ("n_nodes=400", "[2, 300]")),
    Bad("survival_rate", "n_nodes a string", lambda: survival_rate("relu", n_nodes="10"), ("n_nodes='10'", "integer")),
    Bad("mp_threshold", "activation unknown", lambda: mp_threshold("elu"), ("activation='elu'", "'tanh'")),
    Bad("mp_threshold", "q negative", lambda: mp_threshold("gelu", q=-1), ("q=-1", "(0, inf)")),
    Bad("mp_edges", "ratio zero", lambda: mp_edges(0), ("ratio=0", "(0, inf)")),
    Bad("mp_edges", "ratio NaN", lambda: mp_edges(NAN), ("ratio=nan", "finite")),
    Bad("mp_edges", "scale negative", lambda: mp_edges(1, scale=-1), ("scale=-1", "(0, inf)")),
    Bad("mp_density", "x a string", lambda: mp_density("abc", 0.5), ("x='abc'", "real number")),
    Bad("mp_density", "ratio negative", lambda: mp_density([1.0], -0.5), ("ratio=-0.5", "(0, inf)")),
]

PROPAGATION_CASES = [
    Bad("sample_inputs", "n = 10**9, too big for memory", lambda: sample_inputs(10**9, 1024),
        ("n=1000000000", "would take 14.9 TiB")),
    Bad("sample_inputs", "n zero", lambda: sample_inputs(0, 16), ("n=0", "[1, inf)")),
    Bad("sample_inputs", "n a string", lambda: sample_inputs("5", 16), ("n='5'", "integer")),
    Bad("sample_inputs", "width zero", lambda: sample_inputs(4, 0), ("width=0", "[1, inf)")),
    Bad("sample_inputs", "seed negative", lambda: sample_inputs(4, 16, seed=-1), ("seed=-1", "[0, ")),
    Bad("sample_inputs", "device unknown", lambda: sample_inputs(4, 16, device="tpu9"), ("device='tpu9'", "'cpu'")),
    Bad("input_generator", "seed a string", lambda: input_generator("a"), ("seed='a'", "integer")),
    Bad("representation_svals", "a matrix, not a stack", lambda: representation_svals(torch.ones(4, 3)),
        ("(4, 3)", "[D, n, d]")),
    Bad("representation_svals", "integer entries", lambda: representation_svals(torch.ones(2, 4, 3, dtype=torch.int64)),
        ("torch.int64", "floating")),
    Bad("representation_svals", "a list", lambda: representation_svals([[[1.0]]]), ("Hs=[[[1.0]]]", "Tensor")),
    Bad("representation_svals", "centered a string", lambda: representation_svals(torch.ones(2, 4, 3), centered="no"),
        ("centered='no'", "True, False")),
]

PATHS_CASES = [
    Bad("path_orders", "cfg None", lambda: path_orders(None), ("cfg=None", "ResMLPConfig")),
    Bad("path_orders", "cfg a string", lambda: path_orders("width=16"), ("cfg='width=16'", "ResMLPConfig")),
    Bad("path_orders", "method unknown", lambda: path_orders(CFG, method="dft"),
        ("method='dft'", "'exact'", "'probe'")),
    Bad("path_orders", "n_probes zero", lambda: path_orders(CFG, method="probe", n_probes=0),
        ("n_probes=0", "[1, inf)")),
    Bad("path_orders", "seed negative", lambda: path_orders(CFG, seed=-2), ("seed=-2", "[0, ")),
    Bad("path_orders", "weights for another width",
        lambda: path_orders(CFG, weights=sample_weights(ResMLPConfig(width=16, depth=3))), ("width=16", "width=8")),
    Bad("path_orders", "weights a tensor", lambda: path_orders(CFG, weights=torch.zeros(3)),
        ("weights=tensor", "ResMLPWeights")),
    Bad("path_orders", "device unknown", lambda: path_orders(CFG, device="tpu9"), ("device='tpu9'",)),
    Bad("block_jacobian_parts", "cfg a dict", lambda: block_jacobian_parts(dict(width=8)), ("cfg={'width': 8}",)),
    Bad("block_jacobian_parts", "x of the wrong width", lambda: block_jacobian_parts(CFG, x=torch.ones(5)),
        ("(5,)", "width=8")),
    Bad("block_jacobian_parts", "x with NaN", lambda: block_jacobian_parts(CFG, x=torch.full((8,), NAN)),
        ("finite", "width=8")),
    Bad("block_jacobian_parts", "x a list", lambda: block_jacobian_parts(CFG, x=[1.0] * 8), ("x=[1.0,", "Tensor")),
    Bad("block_jacobian_parts", "too big for memory",
        lambda: block_jacobian_parts(ResMLPConfig(width=4096, depth=4096, expansion=1 / 4096)),
        ("width=4096, depth=4096", "would take 2.0 TiB")),
    Bad("order_decomposition", "S and B of different shapes", lambda: order_decomposition(S, B[:2], 1.0),
        ("(3, 8, 8)", "(2, 8, 8)", "[L, d, d]")),
    Bad("order_decomposition", "beta NaN", lambda: order_decomposition(S, B, NAN), ("beta=nan", "finite")),
    Bad("order_decomposition", "probes of the wrong height", lambda: order_decomposition(S, B, 1.0, torch.ones(5, 2)),
        ("(5, 2)", "d=8")),
    Bad("order_decomposition", "S a string", lambda: order_decomposition("S", B, 1.0), ("S='S'", "Tensor")),
    Bad("meanfield_weights", "a NaN gain", lambda: meanfield_weights([1.0, NAN], [0.5, 0.5]),
        ("skip_gain2=[1.0, nan]", "finite gains >= 0")),
    Bad("meanfield_weights", "a negative gain", lambda: meanfield_weights([1.0], [-0.5]),
        ("branch_gain2=[-0.5]", ">= 0")),
    Bad("meanfield_weights", "different lengths", lambda: meanfield_weights([1.0, 1.0], [0.5]),
        ("2 blocks", "1 blocks", "one gain per block")),
    Bad("meanfield_weights", "all gains zero", lambda: meanfield_weights([0.0], [0.0]), ("a_ℓ² + b_ℓ² > 0",)),
    Bad("meanfield_weights", "a string", lambda: meanfield_weights("ab", [0.5]), ("skip_gain2='ab'",)),
]

BRANCH_CASES = [
    Bad("branch_jacobians", "hidden zero", lambda: branch_jacobians(8, 0), ("hidden=0", "[1, inf)")),
    Bad("branch_jacobians", "width a string", lambda: branch_jacobians("8", 16), ("width='8'", "integer")),
    Bad("branch_jacobians", "activation unknown", lambda: branch_jacobians(8, 16, "elu"),
        ("activation='elu'", "'relu'")),
    Bad("branch_jacobians", "trials zero", lambda: branch_jacobians(8, 16, trials=0), ("trials=0", "[1, inf)")),
    Bad("branch_jacobians", "q NaN", lambda: branch_jacobians(8, 16, q=NAN), ("q=nan", "finite")),
    Bad("branch_jacobians", "seed negative", lambda: branch_jacobians(8, 16, seed=-1), ("seed=-1", "[0, ")),
    Bad("branch_jacobians", "too big for memory", lambda: branch_jacobians(4096, 16384, trials=10**4),
        ("width=4096, hidden=16384, trials=10000", "would take")),
    Bad("branch_rank_sweep", "expansions empty", lambda: branch_rank_sweep([]), ("expansions=[]", "at least one")),
    Bad("branch_rank_sweep", "expansions None", lambda: branch_rank_sweep(None), ("expansions=None", "list of ratios")),
    Bad("branch_rank_sweep", "expansions a number", lambda: branch_rank_sweep(4.0),
        ("expansions=4.0", "list of ratios")),
    Bad("branch_rank_sweep", "expansions a string", lambda: branch_rank_sweep("124"), ("expansions='124'",)),
    Bad("branch_rank_sweep", "an expansion zero", lambda: branch_rank_sweep([1.0, 0.0]), ("expansion=0.0", "(0, inf)")),
    Bad("branch_rank_sweep", "an expansion NaN", lambda: branch_rank_sweep([NAN]), ("expansion=nan", "finite")),
    Bad("branch_rank_sweep", "width 1", lambda: branch_rank_sweep([1.0], width=1), ("width=1", "[2, inf)")),
    Bad("branch_rank_sweep", "activation unknown", lambda: branch_rank_sweep([1.0], activation="elu"),
        ("activation='elu'", "'linear'")),
    Bad("branch_rank_sweep", "trials zero", lambda: branch_rank_sweep([1.0], trials=0), ("trials=0",)),
    Bad("branch_rank_sweep", "q negative", lambda: branch_rank_sweep([1.0], q=-1), ("q=-1", "(0, inf)")),
    Bad("branch_rank_sweep", "seed negative", lambda: branch_rank_sweep([1.0], seed=-3), ("seed=-3", "[0, ")),
]

BLOCK_RANK_CASES = [
    Bad("block_rank_profile", "model a string", lambda: block_rank_profile("vit", X4), ("model='vit'", "Module")),
    Bad("block_rank_profile", "a model with no blocks", lambda: block_rank_profile(nn.Linear(4, 4), torch.randn(2, 4)),
        ("Linear", "no list of residual blocks", "blocks=[...]")),
    Bad("block_rank_profile", "inputs None", lambda: block_rank_profile(VIT, None), ("inputs=None", "Tensor or tuple")),
    Bad("block_rank_profile", "inputs a list", lambda: block_rank_profile(VIT, [X4]), ("inputs=[tensor", "tuple")),
    Bad("block_rank_profile", "an empty batch", lambda: block_rank_profile(VIT, torch.randn(0, 1, 4, 4)),
        ("no sample", "B >= 1")),
    Bad("block_rank_profile", "inputs of the wrong shape", lambda: block_rank_profile(VIT, torch.randn(2, 3, 4, 4)),
        ("(2, 3, 4, 4)", "[B, 1, 4, 4]")),
    Bad("block_rank_profile", "token ids beyond the vocabulary",
        lambda: block_rank_profile(TXT, (torch.full((2, 5), 99), MASK)), ("token id 99", "vocab_size=20")),
    Bad("block_rank_profile", "a model that fails inside before its first block",
        lambda: block_rank_profile(FAILS_EARLY, torch.randn(2, 5), blocks=list(FAILS_EARLY.blocks)),
        ("failed on inputs=tensor (2, 5)", "before its first block")),
    Bad("block_rank_profile", "blocks empty", lambda: block_rank_profile(VIT, X4, blocks=[]), ("blocks=[]", "empty")),
    Bad("block_rank_profile", "blocks one module", lambda: block_rank_profile(VIT, X4, blocks=VIT.encoder.blocks[0]),
        ("blocks=Block(...)", "a list")),
    Bad("block_rank_profile", "blocks not in the model", lambda: block_rank_profile(VIT, X4, blocks=[nn.Linear(2, 2)]),
        ("submodules", "Linear")),
    Bad("block_rank_profile", "jacobian_samples beyond the batch",
        lambda: block_rank_profile(VIT, X4, jacobian_samples=3), ("jacobian_samples=3", "[1, 2]")),
    Bad("block_rank_profile", "per_token a string", lambda: block_rank_profile(VIT, X4, per_token="no"),
        ("per_token='no'", "True, False")),
    Bad("block_rank_profile", "jacobian None", lambda: block_rank_profile(VIT, X4, jacobian=None), ("jacobian=None",)),
    Bad("block_rank_profile", "chunk_size zero", lambda: block_rank_profile(VIT, X4, chunk_size=0),
        ("chunk_size=0", "[1, inf)")),
    Bad("block_rank_profile", "a Jacobian too big for memory",
        lambda: block_rank_profile(ResidualMLP(ResMLPConfig(width=2**18, depth=1, expansion=2**-18)),
                                   torch.randn(1, 2**18), method="exact"), ("262144", "would take 2.0 TiB")),
    Bad("block_rank_profile", "an exact Jacobian over the per-request limit (not the machine's memory)",
        lambda: block_rank_profile(ResidualMLP(ResMLPConfig(width=2**14, depth=1, expansion=2**-14)),
                                   torch.randn(1, 2**14), method="exact"), ("8.0 GiB", "4.0 GiB limit", "method='estimate'")),
    Bad("block_rank_profile", "an unknown method", lambda: block_rank_profile(VIT, X4, method="svd"),
        ("method='svd'", "auto", "estimate")),
    Bad("block_rank_profile", "two streams, none named", lambda: block_rank_profile(T5, T5_INPUTS),
        ("2 lists of residual blocks", "'encoder.block'", "'decoder.block'", "blocks=")),
    Bad("block_rank_profile", "a block list path that does not exist",
        lambda: block_rank_profile(T5, T5_INPUTS, blocks="decoder.layers"), ("blocks='decoder.layers'", "encoder.block")),
    Bad("residual_blocks", "model a string", lambda: residual_blocks("vit"), ("model='vit'", "Module")),
    Bad("residual_blocks", "a model with no blocks", lambda: residual_blocks(nn.Linear(3, 3)), ("pass blocks=",)),
    Bad("stream_input", "blocks empty", lambda: stream_input(VIT, X4, blocks=[]), ("blocks=[]", "empty")),
    Bad("stream_input", "blocks holding a non-module", lambda: stream_input(VIT, X4, blocks=[VIT.encoder.blocks[0], 3]),
        ("['int']", "torch modules")),
]

COURSE_CASES = [
    Bad("check", "unknown exercise id", lambda: checking.check("L1.9", 1), ("'L1.9'", "known ids", "L1.1")),
    Bad("check", "exercise id not of the form", lambda: checking.check("ex1", 1), ("'ex1'", "'L<lesson>.<n>'")),
    Bad("check", "exercise id None", lambda: checking.check(None, 1), ("None", "'L<lesson>.<n>'")),
    Bad("get_exercise", "unknown lesson", lambda: checking.get_exercise("L42.1"), ("'L42.1'", "known ids")),
    Bad("lesson_of", "a float", lambda: checking.lesson_of(3.2), ("3.2", "'L<lesson>.<n>'")),
    Bad("register", "a string", lambda: checking.register("L1.1"), ("'L1.1'", "Exercise")),
    Bad("Exercise", "grade not callable", lambda: checking.Exercise("L1.1", "q", "a number", 42),
        ("grade=42", "not callable")),
    Bad("Exercise", "question None", lambda: checking.Exercise("L1.1", None, "a number", lambda a: None),
        ("question=None", "str")),
    Bad("number_grader", "negative tolerance", lambda: checking.number_grader(1.0, rel=-0.1),
        ("rel=-0.1", "[0, inf)")),
    Bad("number_grader", "NaN tolerance", lambda: checking.number_grader(1.0, abs=NAN), ("abs=nan", "finite")),
    Bad("number_grader", "integer a string", lambda: checking.number_grader(1.0, integer="yes"),
        ("integer='yes'", "True, False")),
    Bad("number_grader", "misses a list", lambda: checking.number_grader(1.0, misses=[2.0]), ("misses=[2.0]", "dict")),
    Bad("choice_grader", "no choices", lambda: checking.choice_grader("a", ()), ("choices=()", "empty")),
    Bad("choice_grader", "choices a string", lambda: checking.choice_grader("a", "ab"),
        ("choices='ab'", "list or tuple")),
    Bad("choice_grader", "a hint for no choice", lambda: checking.choice_grader("a", ("a", "b"), hints={"c": "no"}),
        ("['c']", "['a', 'b']")),
    Bad("reveal", "negative tolerance", lambda: checking.reveal("Q", 1.0, 1.0, tol=-1), ("tol=-1", "[0, inf)")),
    Bad("reveal", "a tolerance on a string truth", lambda: checking.reveal("Q", 1.0, "pre", tol=0.1),
        ("'pre'", "not a number")),
    Bad("reveal", "question_id an int", lambda: checking.reveal(3, 1.0, 1.0), ("question_id=3", "str")),
    Bad("as_number", "a bool", lambda: checking.as_number(True), ("True", "not a number")),
    Bad("as_number", "NaN", lambda: checking.as_number(NAN), ("nan", "not finite")),
    Bad("claims_table", "paper unknown", lambda: claims.claims_table("rank"), ("paper='rank'", "'TR'", "'AN'")),
    Bad("claims_table", "paper a list", lambda: claims.claims_table(["TR"]), ("paper=['TR']", "str")),
    Bad("claim", "unknown claim id", lambda: claims.claim(CLAIM_99), (repr(CLAIM_99), "known ids", "TR-1")),
    Bad("claim", "claim id an int", lambda: claims.claim(5), ("claim_id=5", "str")),
    Bad("cited_claim_ids", "text None", lambda: claims.cited_claim_ids(None), ("text=None", "str")),
    Bad("Claim", "verdict unknown", lambda: claims.Claim("TR-" + "13", "c", "r", "t", "yes"),
        ("verdict='yes'", "'reproduced'")),
    Bad("Claim", "id not of the form", lambda: claims.Claim("TR-0x", "c", "r", "t", "reproduced"), ("'TR-0x'",)),
    Bad("ratio_at", "depth zero", lambda: exercises_depth.ratio_at("pre", 1.0, 0), ("depth=0", "[1, 160]")),
    Bad("ratio_at", "depth a string", lambda: exercises_depth.ratio_at("pre", 1.0, "64"), ("depth='64'", "integer")),
    Bad("lesson3_profile", "placement unknown", lambda: exercises_depth.lesson3_profile("middle", 1.0, 4),
        ("placement='middle'", "'pre'")),
    Bad("activation_moments", "activation unknown", lambda: exercises_depth.activation_moments("softplus"),
        ("activation='softplus'", "'relu'")),
    Bad("full_rank_probability", "p beyond 1", lambda: exercises_depth.full_rank_probability(64, 140, p=1.5),
        ("p=1.5", "[0, 1]")),
    Bad("masked_factor_condition", "expansion zero", lambda: exercises_depth.masked_factor_condition(0),
        ("expansion=0", "(0, inf)")),
    Bad("two_matrix_spike_growth", "end before start", lambda: exercises_depth.two_matrix_spike_growth(64, 32),
        ("end=32", "[65, inf)")),
    Bad("first_depth_below", "level NaN", lambda: exercises_depth.first_depth_below("pre", 1.0, NAN), ("level=nan",)),
    Bad("in_unit_interval", "grade not callable", lambda: exercises_depth.in_unit_interval(0.5), ("grade=0.5",)),
]

UTILS_CASES = [
    Bad("atomic_write_bytes", "data not bytes", lambda: files.atomic_write_bytes("/tmp/never-written.bin", 12345),
        ("data=12345", "bytes")),
    Bad("atomic_write_text", "text not a string", lambda: files.atomic_write_text("/tmp/never-written.txt", 5),
        ("text=5", "str")),
    Bad("atomic_write_json", "a folder that is a file", lambda: files.atomic_write_json(Path(__file__) / "x.json", {}),
        (Path(__file__).name,)),
    Bad("device_memory_bytes", "device unknown", lambda: devices.device_memory_bytes("tpu9"), ("device='tpu9'",)),
]

CASES = (CONFIG_CASES + MODEL_CASES + SPECTRA_CASES + PROPAGATION_CASES + PATHS_CASES + BRANCH_CASES
         + BLOCK_RANK_CASES + COURSE_CASES + UTILS_CASES)


@pytest.mark.parametrize("case", CASES, ids=case_ids(CASES))
def test_bad_input(case):
    check(case)


def test_a_malformed_answer_is_told_not_raised(capsys):
    "`check` is called from a learner's notebook: a malformed answer prints the expected form and returns False."
    assert checking.check("L1.1", "abc") is False
    assert capsys.readouterr().out == "✗ malformed answer: expected a float, got 'abc'\n"


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_atomic_writes_respect_the_umask(tmp_path, umask):
    "Every atomic writer creates files with the mode a plain `open(..., 'w')` gives under the same umask."
    old = os.umask(umask)
    try:
        with open(tmp_path / "plain", "w") as f:
            f.write("x")
        files.atomic_write_bytes(tmp_path / "bytes", b"x")
        files.atomic_write_text(tmp_path / "text", "x")
        files.atomic_write_json(tmp_path / "json", {})
        files.atomic_write_jsonl(tmp_path / "jsonl", [{}])
        files.atomic_torch_save({}, tmp_path / "torch")
    finally:
        os.umask(old)
    modes = {p.name: p.stat().st_mode & 0o777 for p in tmp_path.iterdir()}
    assert modes["plain"] == 0o666 & ~umask
    assert modes == dict.fromkeys(modes, modes["plain"]), modes
    assert not [p for p in tmp_path.iterdir() if ".tmp-" in p.name]     # no temp file left behind


def test_good_inputs_still_work():
    "The validators accept what the tools are used with: numpy ints, generators of ratios, tuples of inputs."
    import numpy as np
    assert ResMLPConfig(width=np.int64(8), depth=2, projection=np.bool_(False)).projection is False
    assert len(branch_rank_sweep((e for e in (1.0, 2.0)), width=8, trials=2)) == 2
    assert math.isfinite(erank_from_svals(torch.tensor([3.0, 0.0, 1.0])).item())
    assert len(block_rank_profile(TXT, (torch.randint(0, 20, (2, 5)), MASK), per_token=False)) == 3
