"""A converted model under bf16 autocast and under `torch.compile`: tiny random-init HF GPT-2 and BERT (from
configs, nothing downloaded) converted with AutoNorm. Under autocast the sites' selectors still compute their
logits and gates in float32; under `torch._dynamo` the graph breaks are counted against the original model's,
none of them comes from `autonormify`'s own code in inference, and the compiled model equals eager."""

from __future__ import annotations
import collections, os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
import pytest
import torch
import torch._dynamo as dynamo
import transformers as hf

from autonorm_explorer.norms import convert
from autonorm_explorer.norms.autonorm import AutoNorm, gated_sites
from autonorm_explorer.norms.convert import autonormify

torch.set_num_threads(1)
D, V = 16, 50


def gpt2():
    torch.manual_seed(0)
    return hf.GPT2LMHeadModel(hf.GPT2Config(
        vocab_size=V, n_embd=D, n_layer=1, n_head=2, n_positions=32, resid_pdrop=0.0, embd_pdrop=0.0,
        attn_pdrop=0.0, bos_token_id=0, eos_token_id=0, pad_token_id=0)).eval()


def bert():
    torch.manual_seed(0)
    return hf.BertModel(hf.BertConfig(vocab_size=V, hidden_size=D, num_hidden_layers=1, num_attention_heads=2,
                                      intermediate_size=32, hidden_dropout_prob=0.0,
                                      attention_probs_dropout_prob=0.0)).eval()


MODELS = {"gpt2": gpt2, "bert": bert}


def _call(mask: bool) -> dict:
    ids = torch.randint(1, V, (2, 6), generator=torch.Generator().manual_seed(3))
    if not mask:
        return dict(input_ids=ids)
    keep = torch.ones_like(ids)
    keep[0, 4:] = 0  # sample 0: 4 real tokens
    return dict(input_ids=ids, attention_mask=keep)


def _out(model, kw) -> torch.Tensor:
    out = model(**kw)
    return out.logits if hasattr(out, "logits") else out.last_hidden_state


def _converted(name):
    model, sites = autonormify(MODELS[name](), "autonorm")
    return model.eval(), sites


# ------------------------------------------------ bf16 autocast
def _selector_dtypes(model) -> dict:
    "A hook on every site's selector: {site: dtype of its logits}, filled by the next call."
    seen = {}
    for n, s in gated_sites(model):
        s.selector.register_forward_hook(lambda _, a, o, n=n: seen.__setitem__(n, o.dtype))
    return seen


@pytest.mark.parametrize("name", list(MODELS))
def test_autocast_bf16_keeps_the_gates_float32(name):
    "Under CPU bf16 autocast the selectors' logits and gates stay float32, close to the float32 run's."
    kw = _call(mask=True)
    model, _ = _converted(name)
    with torch.no_grad():
        want = _out(model, kw)
        w32 = {n: s.last_weights.clone() for n, s in gated_sites(model)}
        logits = _selector_dtypes(model)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            got = _out(model, kw)
            with torch.no_grad():
                base = _out(MODELS[name](), kw)
    assert logits and set(logits.values()) == {torch.float32}, logits
    assert {s.last_weights.dtype for _, s in gated_sites(model)} == {torch.float32}
    for n, s in gated_sites(model):  # bf16 rounding of the sites' inputs only: ≈ 1e-2
        torch.testing.assert_close(s.last_weights, w32[n], atol=3e-2, rtol=0, msg=n)
    assert got.dtype == base.dtype  # the site hands back what the model's own norm would have
    torch.testing.assert_close(got.float(), want, atol=0.1, rtol=0.1)


def test_autocast_negative_control_a_bare_autonorm_goes_bf16():
    "The check above can fail: the same AutoNorm outside a converted site computes its logits in bf16."
    torch.manual_seed(0)
    norm = AutoNorm(D).eval()
    seen = {}
    norm.selector.register_forward_hook(lambda _, a, o: seen.__setitem__("logits", o.dtype))
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
        norm(torch.randn(2, 5, D))
    assert seen["logits"] == torch.bfloat16 and norm.last_weights.dtype == torch.bfloat16


# ------------------------------------------------ torch.compile / dynamo
def _explain(model, kw):
    dynamo.reset()
    with torch.no_grad():
        e = dynamo.explain(model)(**kw)
    frames = collections.Counter(
        os.path.basename(f.filename) for r in e.break_reasons for f in r.user_stack[-2:]
    )
    return e.graph_count, e.graph_break_count, frames


@pytest.mark.parametrize("name, mask", [("gpt2", False), ("bert", True)])
def test_graph_breaks_counted_and_none_from_autonormify(name, mask, monkeypatch):
    """The original is one graph, and so is the converted model in inference without a mask (no break from
    `NormSite`, the stream hooks or the gate); with a mask, the top stream hook's mask reading is a graph of its
    own (next test). Negative control: the old checkpoint-replay
    query, which asked the autograd engine at every call even without grad, breaks the graph in `convert.py`
    (the detector can fail)."""
    kw = _call(mask)
    graphs0, breaks0, _ = _explain(MODELS[name](), kw)
    model, _ = _converted(name)
    graphs, breaks, frames = _explain(model, kw)
    asked_always = lambda: torch._C._current_graph_task_id() != -1  # noqa: E731  (the old query: with or without grad)
    monkeypatch.setattr(convert, "in_checkpoint_recompute", asked_always)
    _, breaks_old, frames_old = _explain(model, kw)
    print(f"{name} mask={mask}: original {graphs0} graph(s), {breaks0} break(s); converted {graphs}, {breaks}"
          f" {dict(frames)}; with the old site code {breaks_old} {dict(frames_old)}")
    assert (graphs0, breaks0) == (1, 0)
    # one graph, as the original; with a padding mask a second graph: the top-level stream hook's few mask ops,
    # compiled as a frame of its own (see the next test: any tensor op in a hook on the top module does that to
    # the unconverted model too); before issue 26's work 8 (GPT-2) and 14 (BERT with mask) breaks
    assert (graphs, breaks) == ((2, 1) if mask else (1, 0)), (graphs, breaks, frames)
    assert breaks < breaks_old
    assert frames_old["convert.py"] > 0, frames_old


def _graph_ops(model, kw) -> list[list[str]]:
    "The functions and tensor methods each graph dynamo makes of one call of `model` calls, by name."
    dynamo.reset()
    with torch.no_grad():
        e = dynamo.explain(model)(**kw)
    assert not e.break_reasons, [r.reason for r in e.break_reasons]   # no graph break inside a frame
    return [[getattr(n.target, "__name__", str(n.target)) for n in g.graph.nodes if n.op in ("call_function", "call_method")]
            for g in e.graphs]


def test_the_mask_graph_is_the_top_hook_frame():
    """Why a padding mask gives BERT two graphs: a forward pre-hook on the top module that does any tensor op runs
    as its own compiled frame, before the forward's graph. Control: the unconverted BERT with a one-op hook of that
    kind also makes two graphs. Converted: the first graph holds only the mask reading (compare with 0/1, the
    in-graph check, the boolean), and the second, the forward, has the original's embedding and attention ops and
    its linears plus the selectors' own."""
    kw = _call(mask=True)
    base = _graph_ops(bert(), kw)
    hooked = bert()
    seen = []
    hooked.register_forward_pre_hook(lambda m, a, k: seen.append(k["attention_mask"].ne(0)), with_kwargs=True)
    control = _graph_ops(hooked, kw)
    assert len(base) == 1 and len(control) == 2 and control[0] == ["ne"]   # the mechanism, without autonormify
    model, _ = _converted("bert")
    first, forward = _graph_ops(model, kw)
    assert set(first) <= {"eq", "or_", "all", "_assert_async", "ne"}, first
    heavy = ("embedding", "linear", "scaled_dot_product_attention")
    count = lambda ops: collections.Counter(o for o in ops if o in heavy)  # noqa: E731
    selector_linears = sum(isinstance(m, torch.nn.Linear) for _, s in gated_sites(model) for m in s.selector.modules())
    want = count(base[0]) + collections.Counter(linear=selector_linears)    # the gates' selector MLPs add theirs
    assert count(forward) == want and selector_linears > 0, (count(forward), want)


@pytest.mark.parametrize("name, backend", [("gpt2", "aot_eager"), ("bert", "eager")])
def test_compiled_equals_eager(name, backend):
    "torch.compile (no C++ compiler: the eager / aot_eager backends) gives the eager outputs, padding mask on."
    kw = _call(mask=True)
    model, _ = _converted(name)
    with torch.no_grad():
        want = _out(model, kw)
        dynamo.reset()
        got = _out(torch.compile(model, backend=backend), kw)
        base = _out(MODELS[name](), kw)
    torch.testing.assert_close(got, want, atol=1e-5, rtol=1e-5)
    assert (got - base).abs().max() > 1e-4  # negative control: AutoNorm is not the original LN, so this can fail
