"""`autonormify` on models with more than one stream (HF BART and T5 encoder–decoders, CLIP's text and
vision towers, torch's `nn.Transformer`), on masks in every form a user or a model passes them, on cached
generation and on sites that see flattened tokens (OPT). Tiny random-init models built from configs
(no download); every oracle is the original model or the same model run on one sample alone."""

from __future__ import annotations
import copy, os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F
import transformers as hf
from transformers.masking_utils import create_bidirectional_mask

from autonorm_explorer.norms.autonorm import gated_sites
from autonorm_explorer.norms.convert import (
    autonormify,
    keep_mask,
    keys_from_attention_mask,
    padding_mask,
    probe_causal,
    real_token_mask,
)

torch.set_num_threads(1)
D, V = 16, 50
# Tolerances. Identity methods (ln on LayerNorms, rmsnorm on RMSNorms) compute the same function as
# the original with another kernel: float32 rounding of a few ops per site, ≤ 1e-6 relative; 1e-5
# leaves room for the attention's reductions. One sample alone vs inside a padded batch: masked keys
# get exactly zero weight, so only the summation order changes: again ~1e-6 in float32.
TOL = 1e-5


def _seed_affines(model: nn.Module, seed: int = 1) -> nn.Module:
    "Non-trivial γ, β in every norm, so that a site that drops them is seen."
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(getattr(m, "weight", None), torch.Tensor) and m.weight.ndim == 1 and (
                "Norm" in type(m).__name__
            ):
                m.weight.copy_(1 + 0.3 * torch.randn(m.weight.shape, generator=g))
                if getattr(m, "bias", None) is not None:
                    m.bias.copy_(0.2 * torch.randn(m.bias.shape, generator=g))
    return model


def bart():
    torch.manual_seed(0)
    cfg = hf.BartConfig(
        vocab_size=V, d_model=D, encoder_layers=1, decoder_layers=1, encoder_attention_heads=2,
        decoder_attention_heads=2, encoder_ffn_dim=32, decoder_ffn_dim=32, max_position_embeddings=64,
        dropout=0.0, attention_dropout=0.0, activation_dropout=0.0, pad_token_id=1, bos_token_id=0,
        eos_token_id=2, decoder_start_token_id=2, forced_eos_token_id=None,
    )
    return _seed_affines(hf.BartForConditionalGeneration(cfg)).eval()


def t5():
    torch.manual_seed(0)
    cfg = hf.T5Config(
        vocab_size=V, d_model=D, d_kv=8, d_ff=32, num_layers=1, num_decoder_layers=1, num_heads=2,
        dropout_rate=0.0, decoder_start_token_id=0, pad_token_id=0, eos_token_id=1,
    )
    return _seed_affines(hf.T5ForConditionalGeneration(cfg)).eval()


def clip():
    torch.manual_seed(0)
    cfg = hf.CLIPConfig(
        text_config=dict(vocab_size=V, hidden_size=D, intermediate_size=32, num_hidden_layers=1,
                         num_attention_heads=2, max_position_embeddings=16, eos_token_id=2),
        vision_config=dict(hidden_size=D, intermediate_size=32, num_hidden_layers=1,
                           num_attention_heads=2, image_size=16, patch_size=8),
        projection_dim=8,
    )
    return _seed_affines(hf.CLIPModel(cfg)).eval()


def torch_transformer():
    torch.manual_seed(0)
    return _seed_affines(
        nn.Transformer(D, 2, 1, 1, dim_feedforward=32, dropout=0.0, batch_first=True)
    ).eval()


def _ids(b, n, seed, low=3):
    return torch.randint(low, V, (b, n), generator=torch.Generator().manual_seed(seed))


def _keep(b, n, real):  # real[i] = the number of real tokens of sample i (right padding)
    return torch.arange(n)[None, :] < torch.tensor(real)[:, None]


# Inputs with padding at different lengths in the two streams: sample 0 has 5 of 7 real encoder
# tokens and 4 of 5 real decoder tokens; sample 1 is full.
ENC, DEC = _keep(2, 7, [5, 7]), _keep(2, 5, [4, 5])


def seq2seq_inputs(pad_id):
    ids, dec = _ids(2, 7, 0), _ids(2, 5, 1)
    ids[~ENC], dec[~DEC] = pad_id, pad_id
    return dict(input_ids=ids, attention_mask=ENC.long(), decoder_input_ids=dec,
                decoder_attention_mask=DEC.long())


def clip_inputs():
    ids = _ids(2, 7, 0)
    ids[0, 4] = 2  # eos of sample 0 at its last real token; pads after it
    ids[1, 6] = 2
    ids[~ENC] = 1
    pix = torch.randn(2, 3, 16, 16, generator=torch.Generator().manual_seed(2))
    return dict(input_ids=ids, attention_mask=ENC.long(), pixel_values=pix)


def torch_inputs():
    g = torch.Generator().manual_seed(0)
    src, tgt = torch.randn(2, 7, D, generator=g), torch.randn(2, 5, D, generator=g)
    return dict(src=src, tgt=tgt, src_key_padding_mask=~ENC, tgt_key_padding_mask=~DEC,
                memory_key_padding_mask=~ENC,
                tgt_mask=nn.Transformer.generate_square_subsequent_mask(5))


def _outputs(model, kw) -> list[torch.Tensor]:
    "The tensors a family's call returns, each stream's (decoder, encoder; text, vision)."
    with torch.no_grad():
        out = model(**kw)
    if isinstance(out, torch.Tensor):
        return [out]
    if hasattr(out, "text_model_output"):
        return [out.text_model_output.last_hidden_state, out.vision_model_output.last_hidden_state]
    return [out.logits, out.encoder_last_hidden_state]


def _bart_like(config_cls, model_cls, **extra):
    "A BART-shaped encoder–decoder family (same arguments, different norm placement/positions)."
    def make():
        torch.manual_seed(0)
        cfg = config_cls(
            vocab_size=V, d_model=D, encoder_layers=1, decoder_layers=1, encoder_attention_heads=2,
            decoder_attention_heads=2, encoder_ffn_dim=32, decoder_ffn_dim=32,
            max_position_embeddings=64, dropout=0.0, attention_dropout=0.0, activation_dropout=0.0,
            pad_token_id=1, bos_token_id=0, eos_token_id=2, decoder_start_token_id=2, **extra,
        )
        return _seed_affines(model_cls(cfg)).eval()
    return make


def siglip():
    torch.manual_seed(0)
    cfg = hf.SiglipConfig(
        text_config=dict(vocab_size=V, hidden_size=D, intermediate_size=32, num_hidden_layers=1,
                         num_attention_heads=2, max_position_embeddings=16),
        vision_config=dict(hidden_size=D, intermediate_size=32, num_hidden_layers=1,
                           num_attention_heads=2, image_size=16, patch_size=8),
    )
    return _seed_affines(hf.SiglipModel(cfg)).eval()


FAMILIES = {  # name → (model, inputs, conversion options of the identity method)
    # families chosen for variety, converted with no family-specific code: pre-LN (mBART,
    # Pegasus), sinusoidal positions (Marian, Pegasus), a bidirectional dual encoder (SigLIP)
    "mbart": (_bart_like(hf.MBartConfig, hf.MBartForConditionalGeneration),
              lambda: seq2seq_inputs(1), dict(method="ln")),
    "marian": (_bart_like(hf.MarianConfig, hf.MarianMTModel), lambda: seq2seq_inputs(1),
               dict(method="ln")),
    "pegasus": (_bart_like(hf.PegasusConfig, hf.PegasusForConditionalGeneration),
                lambda: seq2seq_inputs(1), dict(method="ln")),
    "siglip": (siglip, clip_inputs, dict(method="ln")),
    "bart": (bart, lambda: seq2seq_inputs(1), dict(method="ln")),
    "t5": (t5, lambda: seq2seq_inputs(0), dict(method="rmsnorm", targets=("rmsnorm",))),
    "clip": (clip, clip_inputs, dict(method="ln")),
    "nn.Transformer": (torch_transformer, torch_inputs, dict(method="ln")),
}


@pytest.mark.parametrize("family", list(FAMILIES))
def test_identity_method_with_padding_at_different_lengths(family):
    "Each stream's sites get their own stream's mask: the identity method equals the original."
    make, inputs, opts = FAMILIES[family]
    kw = inputs()
    ref = _outputs(make(), kw)
    model, sites = autonormify(make(), **opts)
    assert len(sites) >= 4
    for a, b in zip(_outputs(model, kw), ref):
        torch.testing.assert_close(a, b, atol=TOL, rtol=TOL)


def _alone(kw: dict, family: str) -> dict:
    "Sample 0 alone, its padding cut off (the oracle of 'padding does not move real tokens')."
    n_enc, n_dec = int(ENC[0].sum()), int(DEC[0].sum())
    cut = {"input_ids": n_enc, "attention_mask": n_enc, "decoder_input_ids": n_dec,
           "decoder_attention_mask": n_dec, "src": n_enc, "src_key_padding_mask": n_enc,
           "memory_key_padding_mask": n_enc, "tgt": n_dec, "tgt_key_padding_mask": n_dec}
    out = {}
    for k, v in kw.items():
        if k == "tgt_mask":
            out[k] = v[:n_dec, :n_dec]
        elif k in cut:
            out[k] = v[:1, : cut[k]]
        else:
            out[k] = v[:1]
    return out


def _real_part(outs, family):
    "Sample 0's real positions of each output (decoder/text first, then encoder/vision)."
    n_enc, n_dec = int(ENC[0].sum()), int(DEC[0].sum())
    dual = family in ("clip", "siglip")  # text first, then the whole vision output
    first = n_enc if dual else n_dec
    second = None if dual else n_enc
    return [outs[0][:1, :first]] + [o[:1, :second] for o in outs[1:]]


@pytest.mark.parametrize("family", list(FAMILIES))
def test_autonorm_gates_ignore_padding_per_stream(family):
    "A padded sample's outputs and gates equal those of the same sample run alone, unpadded."
    make, inputs, opts = FAMILIES[family]
    kw = inputs()
    model, _ = autonormify(make(), "autonorm", targets=opts.get("targets", ("layernorm",)))
    model.eval()
    batch = _real_part(_outputs(model, kw), family)
    w_batch = {n: s.last_weights[:1].clone() for n, s in gated_sites(model)}
    alone = _real_part(_outputs(model, _alone(kw, family)), family)
    w_alone = {n: s.last_weights[:1].clone() for n, s in gated_sites(model)}
    for a, b in zip(batch, alone):
        torch.testing.assert_close(a, b, atol=TOL, rtol=TOL)
    for n in w_batch:  # the per-sample statistics themselves, site by site
        torch.testing.assert_close(w_batch[n], w_alone[n], atol=TOL, rtol=TOL, msg=n)


def test_wrong_routing_is_caught():
    """Negative control: the old routing (the encoder's mask at every site) at equal lengths runs,
    and the per-sample oracle above catches it."""
    model, _ = autonormify(bart(), "autonorm")
    model.eval()
    enc5 = _keep(2, 5, [3, 5]).long()
    kw5 = dict(input_ids=_ids(2, 5, 0), attention_mask=enc5, decoder_input_ids=_ids(2, 5, 1))
    with torch.no_grad():
        right = model(**kw5).logits
        with padding_mask(model, enc5.bool()):  # the decoder has no mask of its own: gets this one
            wrong = model(**kw5).logits
    assert (right - wrong).abs().max() > 1e-3


def test_ambiguous_sites_refused_at_conversion():
    "A site called directly by a module that takes two streams cannot be routed: refused, untouched."

    class TwoStreams(nn.Module):
        def __init__(self):
            super().__init__()
            self.norm = nn.LayerNorm(D)

        def forward(self, src, tgt, src_key_padding_mask=None, tgt_key_padding_mask=None):
            return self.norm(src), self.norm(tgt)

    m = TwoStreams()
    with pytest.raises(ValueError, match=r"'norm' \(called by '<model>'\).*padding_mask"):
        autonormify(m)
    assert isinstance(m.norm, nn.LayerNorm) and not m._forward_pre_hooks


# ------------------------------------------------ masks by meaning
def _hf_config(impl):
    cfg = hf.BertConfig(hidden_size=D, num_attention_heads=2)
    cfg._attn_implementation = impl
    return cfg


@pytest.mark.parametrize("impl", ["eager", "sdpa"])
@pytest.mark.parametrize("dtype", [torch.bool, torch.int64, torch.int32, torch.float32])
def test_attention_mask_reads_as_hf_reads_it(impl, dtype):
    "Oracle: the keys HF's own mask builder lets some query attend to."
    keep = _keep(3, 6, [4, 6, 1])
    m = keep.to(dtype)
    emb = torch.zeros(3, 6, D)
    built = create_bidirectional_mask(config=_hf_config(impl), inputs_embeds=emb, attention_mask=m)
    assert built is not None and built.ndim == 4
    hf_keys = keys_from_attention_mask(built)
    assert torch.equal(hf_keys, keep)
    assert torch.equal(real_token_mask("attention_mask", m), hf_keys)
    assert torch.equal(keep_mask(m), hf_keys)  # padding_mask's reading agrees


@pytest.mark.parametrize("pad_value", [float("-inf"), torch.finfo(torch.float32).min, -1e4])
def test_additive_masks(pad_value):
    "torch's additive key padding (its own conversion of a bool mask) and HF-style additive values."
    pad = ~_keep(2, 5, [3, 5])
    canon = F._canonical_mask(mask=pad, mask_name="src_key_padding_mask", other_type=None,
                              other_name="", target_type=torch.float32)
    assert torch.equal(real_token_mask("src_key_padding_mask", canon), ~pad)
    assert torch.equal(real_token_mask("src_key_padding_mask", pad), ~pad)
    additive = torch.zeros(2, 5).masked_fill(pad, pad_value)
    assert torch.equal(keep_mask(additive), ~pad)  # issue 23: padding_mask read this inverted
    assert torch.equal(real_token_mask("tgt_key_padding_mask", additive), ~pad)


@pytest.mark.parametrize(
    "name, mask, says",
    [
        ("attention_mask", torch.tensor([[0.0, float("-inf")]]), "inverted"),
        ("attention_mask", torch.tensor([[1.0, 0.5]]), "0.5"),
        ("attention_mask", torch.tensor([[1, 2]]), "[1.0, 2.0]"),
        ("src_key_padding_mask", torch.tensor([[0.0, 1.0]]), "1.0"),
        ("src_key_padding_mask", torch.tensor([[0, 1]]), "integer"),
        ("mask", torch.zeros(1, 3), "all zeros"),
        ("mask", torch.tensor([[0.0, float("nan")]]), "nan"),
        ("mask", torch.ones(1, 1, 3), "(1, 1, 3)"),
    ],
)
def test_ambiguous_masks_refused(name, mask, says):
    with pytest.raises(ValueError, match="allowed|expected|need") as e:
        real_token_mask(name, mask)
    assert says in str(e.value) and name in str(e.value)


def test_padding_mask_context_reads_additive_masks():
    "padding_mask(model, additive) gives the same outputs as the bool keep-mask."
    torch.manual_seed(0)
    model, _ = autonormify(nn.Sequential(nn.Linear(D, D), nn.LayerNorm(D)), "autonorm")
    model.eval()
    x = torch.randn(2, 5, D)
    keep = _keep(2, 5, [3, 5])
    with torch.no_grad():
        with padding_mask(model, keep):
            a = model(x)
        with padding_mask(model, torch.zeros(2, 5).masked_fill(~keep, float("-inf"))):
            b = model(x)
        with padding_mask(model, keep.long()):
            c = model(x)
        d = model(x)
    torch.testing.assert_close(a, b)
    torch.testing.assert_close(a, c)
    assert (a - d).abs().max() > 1e-3  # negative control: the mask matters


# ------------------------------------------------ cached generation
def gpt2():
    torch.manual_seed(0)
    return hf.GPT2LMHeadModel(hf.GPT2Config(
        vocab_size=V, n_embd=D, n_layer=2, n_head=2, n_positions=64, resid_pdrop=0.0,
        embd_pdrop=0.0, attn_pdrop=0.0, bos_token_id=0, eos_token_id=0, pad_token_id=0))


def _gqa_decoder(model_cls, config_cls):
    "A two-layer grouped-query decoder (Qwen2 and Llama share the config fields)."
    torch.manual_seed(0)
    return model_cls(config_cls(
        vocab_size=V, hidden_size=D, intermediate_size=32, num_hidden_layers=2,
        num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=64,
        bos_token_id=0, eos_token_id=0, pad_token_id=0))


def qwen2(): return _gqa_decoder(hf.Qwen2ForCausalLM, hf.Qwen2Config)


def llama(): return _gqa_decoder(hf.LlamaForCausalLM, hf.LlamaConfig)


def opt():
    torch.manual_seed(0)
    return hf.OPTForCausalLM(hf.OPTConfig(
        vocab_size=V, hidden_size=D, ffn_dim=32, num_hidden_layers=2, num_attention_heads=2,
        word_embed_proj_dim=D, max_position_embeddings=64, dropout=0.0, attention_dropout=0.0,
        bos_token_id=0, eos_token_id=0, pad_token_id=0))


def gemma():
    torch.manual_seed(0)
    return hf.GemmaForCausalLM(hf.GemmaConfig(
        vocab_size=V, hidden_size=D, intermediate_size=32, num_hidden_layers=2, head_dim=8,
        num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=64,
        bos_token_id=0, eos_token_id=0, pad_token_id=0))


def test_gemma_one_plus_weight_is_taken_by_behaviour():
    "Gemma's (1 + w) RMSNorm at init (w = 0) converts without a rule, and rmsnorm is the identity."
    ids = _ids(2, 6, 3)
    base = gemma().eval()
    with torch.no_grad():
        want = base(ids).logits
    model, sites = autonormify(gemma(), "rmsnorm", targets=("rmsnorm",))
    assert sites and all(s.source == "GemmaRMSNorm" for s in sites)
    with torch.no_grad():
        torch.testing.assert_close(model.eval()(ids).logits, want, atol=TOL, rtol=TOL)


DECODERS = {  # name → (model, targets)
    "gemma": (gemma, ("rmsnorm",)),
    "gpt2": (gpt2, ("layernorm",)),
    "qwen2": (qwen2, ("rmsnorm",)),
    "llama": (llama, ("rmsnorm",)),
    "opt": (opt, ("layernorm",)),
}


def _generate(model, ids, mask, use_cache, **kw):
    with torch.no_grad():
        out = model.generate(input_ids=ids, attention_mask=mask, max_new_tokens=4, do_sample=False,
                             use_cache=use_cache, output_scores=True, return_dict_in_generate=True,
                             pad_token_id=0, eos_token_id=None, **kw)
    return out.sequences, torch.stack(out.scores)


# Cached vs uncached in float64: the same arithmetic in another order (a running sum carried over the
# cache instead of one cumulative sum), so the float64 logits agree to ~1e-15 relative; generate hands
# back float32 scores, and two roundings of such values are at most one float32 ulp apart (2^-23 ≈
# 1.2e-7 relative). A wrong prefix moves them by ≥ 1e-4 (the negative control below).
TOL64 = dict(atol=1e-7, rtol=2.5e-7)


@pytest.mark.parametrize("name", list(DECODERS))
@pytest.mark.parametrize("left_padding", [False, True])
def test_cached_generate_equals_uncached(name, left_padding):
    make, targets = DECODERS[name]
    model, sites = autonormify(make().double(), "autonorm", targets=targets)
    assert all(s.causal for s in sites)
    model.eval()
    ids = _ids(2, 6, 3)
    mask = _keep(2, 6, [6, 6])
    if left_padding:
        mask = torch.tensor([[0, 0, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1]]).bool()
        ids[~mask] = 0
    seq_c, sc_c = _generate(model, ids, mask.long(), True)
    seq_u, sc_u = _generate(model, ids, mask.long(), False)
    assert torch.equal(seq_c, seq_u)
    torch.testing.assert_close(sc_c, sc_u, **TOL64)


@pytest.mark.parametrize("family", ["bart", "t5"])
def test_cached_generate_seq2seq(family):
    make, inputs, opts = FAMILIES[family]
    model, _ = autonormify(make().double(), "autonorm", targets=opts.get("targets", ("layernorm",)))
    model.eval()
    kw = inputs()
    ids, mask = kw["input_ids"], kw["attention_mask"]
    seq_c, sc_c = _generate(model, ids, mask, True)
    seq_u, sc_u = _generate(model, ids, mask, False)
    assert torch.equal(seq_c, seq_u)
    torch.testing.assert_close(sc_c, sc_u, **TOL64)


def test_cached_step_without_its_prefix_is_caught():
    """Negative control: a site that forgets the prefix (its running sums reset before a cached
    step) is wrong by far more than TOL64; a site that did not see the prefix refuses."""
    model, _ = autonormify(gpt2().double(), "autonorm")
    model.eval()
    ids = _ids(2, 6, 3)
    with torch.no_grad():
        full = model(ids, use_cache=False).logits[:, -1]
        out = model(ids[:, :5], use_cache=True)
        step = model(ids[:, 5:], past_key_values=out.past_key_values, use_cache=True).logits[:, -1]
        torch.testing.assert_close(step, full, **TOL64)  # by hand, too
        sites = [m for m in model.modules() if hasattr(m, "_prefix")]
        out = model(ids[:, :5], use_cache=True)
        for s in sites:  # forget the prefix's tokens: as if the site pooled only the new one
            s._prefix = (torch.zeros_like(s._prefix[0]), torch.zeros_like(s._prefix[1]), 5)
        wrong = model(ids[:, 5:], past_key_values=out.past_key_values, use_cache=True).logits[:, -1]
        assert (wrong - full).abs().max() > 1e-4
        out = model(ids[:, :5], use_cache=True)
        model(ids[:, :3], use_cache=False)  # the sites now hold 3 positions, the cache 5
        with pytest.raises(ValueError, match="cached step at position 5.*saw 3 positions"):
            model(ids[:, 5:], past_key_values=out.past_key_values, use_cache=True)


def test_cached_generate_refused_for_whole_sequence_gates():
    "Per-sample gates over the whole sequence cannot be cached: refused in one line, not wrong."
    model, _ = autonormify(gpt2(), "autonorm", causal=False)
    model.eval()
    ids = _ids(2, 6, 3)
    with pytest.raises(ValueError, match="causal=False.*use_cache=False"):
        _generate(model, ids, torch.ones_like(ids), True)
    _generate(model, ids, torch.ones_like(ids), False)  # the uncached run works


# ------------------------------------------------ flattened tokens (OPT)
def test_flattened_token_sites_count_samples():
    "OPT's final_layer_norm sees [B·T, d]: regrouped by the call's batch, gates count samples."
    model, sites = autonormify(opt(), "autonorm")
    model.train()
    ids, keep = _ids(2, 6, 3), _keep(2, 6, [4, 6])
    model(ids, attention_mask=keep.long(), use_cache=False)
    counts = {n: s._acc_n for n, s in gated_sites(model)}
    assert set(counts.values()) == {2}, counts
    model.eval()  # and the per-sample oracle: sample 0 alone
    with torch.no_grad():
        a = model(ids, attention_mask=keep.long(), use_cache=False).logits[:1, :4]
        b = model(ids[:1, :4], use_cache=False).logits
    torch.testing.assert_close(a, b, atol=TOL, rtol=TOL)


# ------------------------------------------------ causal per stream, training mode kept
def _leak(model, kw, key, n_dec):
    "Max change of the decoder outputs before the last position when only the last token changes."
    kw2 = dict(kw)
    if key == "tgt":
        kw2["tgt"] = kw["tgt"].clone()
        kw2["tgt"][:, -1] += 3.0
    else:
        kw2[key] = kw[key].clone()
        kw2[key][:, -1] = (kw[key][:, -1] + 7) % V
    a, b = _outputs(model, kw)[0], _outputs(model, kw2)[0]
    return (a[:, : n_dec - 1] - b[:, : n_dec - 1]).abs().max().item()


@pytest.mark.parametrize("family", ["bart", "t5", "nn.Transformer"])
def test_causal_flag_per_stream(family):
    "The encoder's sites pool their whole sequence, the decoder's only the past: no leak."
    make, inputs, opts = FAMILIES[family]
    model, sites = autonormify(make(), "autonorm", targets=opts.get("targets", ("layernorm",)))
    model.eval()
    flags = {s.path.split(".")[1 if s.path.startswith("model.") else 0]: s.causal for s in sites}
    assert flags == {"encoder": False, "decoder": True}, flags
    kw = inputs()
    for k in ("attention_mask", "decoder_attention_mask", "src_key_padding_mask",
              "tgt_key_padding_mask", "memory_key_padding_mask"):
        kw.pop(k, None)  # full sequences: any change at the last position is a real token's
    key = "tgt" if family == "nn.Transformer" else "decoder_input_ids"
    assert _leak(model, kw, key, 5) < TOL
    # negative control: the decoder's sites made non-causal leak the last token backwards
    leaky, _ = autonormify(make(), "autonorm", causal=False, targets=opts.get("targets", ("layernorm",)))
    assert _leak(leaky.eval(), kw, key, 5) > 1e-3


def test_training_mode_kept():
    "autonormify(model.eval()) gives sites in eval mode: two identical calls agree."
    model, _ = autonormify(bart().eval(), "autonorm")
    assert not any(m.training for m in model.modules())
    kw = seq2seq_inputs(1)
    a, b = _outputs(model, kw)[0], _outputs(model, kw)[0]
    torch.testing.assert_close(a, b, atol=0, rtol=0)
    trained, _ = autonormify(bart().train(), "autonorm")
    assert all(m.training for m in trained.modules())


def test_shared_layers_count_once_per_call():
    "ALBERT runs one layer twice per call: its sites count each sample, and τ steps, once."
    torch.manual_seed(0)
    model = hf.AlbertModel(hf.AlbertConfig(
        vocab_size=V, embedding_size=D, hidden_size=D, num_hidden_layers=2, num_attention_heads=2,
        intermediate_size=32, hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0))
    model, _ = autonormify(model, "autonorm")
    model.train()
    ids = _ids(3, 6, 3)
    for _ in range(2):
        model(ids, attention_mask=torch.ones_like(ids)).last_hidden_state.sum().backward()
    stats = {n: (s._acc_n, s.train_steps) for n, s in gated_sites(model)}
    assert set(stats.values()) == {(6, 2)}, stats  # 2 calls × 3 samples, 2 τ steps


@pytest.mark.parametrize("name", ["gpt2", "qwen2"])
def test_cached_beam_search_equals_uncached(name):
    "Beam search reorders the cache each step; the sites' running means follow it."
    make, targets = DECODERS[name]
    model, _ = autonormify(make().double(), "autonorm", targets=targets)
    model.eval()
    ids, mask = _ids(2, 6, 3), torch.tensor([[0, 0, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1]])
    ids[mask == 0] = 0
    beams = dict(num_beams=3, num_return_sequences=3)
    seq_c, sc_c = _generate(model, ids, mask, True, **beams)
    seq_u, sc_u = _generate(model, ids, mask, False, **beams)
    assert torch.equal(seq_c, seq_u)
    torch.testing.assert_close(sc_c, sc_u, **TOL64)


# ------------------------------------------------ causality by behaviour (probe_causal)
PADDING_ARGS = ("attention_mask", "decoder_attention_mask", "src_key_padding_mask", "tgt_key_padding_mask",
                "memory_key_padding_mask")
PROBED = {  # family → (the stream key the leak changes, decoder/text length, the stream probed causal)
    "bart": ("decoder_input_ids", 5, "decoder"),
    "t5": ("decoder_input_ids", 5, "decoder"),
    "clip": ("input_ids", 7, "text_model"),
    "nn.Transformer": ("tgt", 5, "decoder"),
}


def _full(family):
    "The family's inputs without padding (the probe changes the last position; it must be a real token)."
    kw = FAMILIES[family][1]()
    return {k: v for k, v in kw.items() if k not in PADDING_ARGS}


def _stream(path):
    return path.split(".")[1 if path.startswith("model.") else 0]


@pytest.mark.parametrize("family", list(PROBED))
def test_probe_finds_the_causal_streams(family):
    """The probe on the original model: encoders and CLIP's vision tower look ahead, decoders and CLIP's text
    tower do not; converted with the probe's flags, a later token moves no earlier output (< 1e-6), while
    the causal stream made non-causal leaks (> 1e-3: the negative control)."""
    make, _, opts = FAMILIES[family]
    key, n, causal_stream = PROBED[family]
    targets = opts.get("targets", ("layernorm",))
    kw = _full(family)
    flags = probe_causal(make(), kw, targets=targets)
    by_stream = {}
    for p, c in flags.items():
        by_stream.setdefault(_stream(p), set()).add(c)
    assert by_stream == {s: {s == causal_stream} for s in by_stream} and len(by_stream) == 2, by_stream
    model, sites = autonormify(make(), "autonorm", targets=targets, causal_probe=kw)
    assert {s.path: s.causal for s in sites} == flags
    assert _leak(model.eval(), kw, key, n) < 1e-6
    wrong, _ = autonormify(make(), "autonorm", targets=targets, causal=False)
    assert _leak(wrong.eval(), kw, key, n) > 1e-3


def test_clip_text_tower_was_missed_by_attributes_and_the_check_says_so():
    "CLIP builds its causal mask inside: the attributes say non-causal, which leaks; check_causal refuses it."
    kw = _full("clip")
    model, sites = autonormify(clip(), "autonorm")
    assert not any(s.causal for s in sites)  # the attribute reading (the miss the probe fixes)
    assert _leak(model.eval(), kw, "input_ids", 7) > 1e-3
    untouched = clip()
    with pytest.raises(ValueError, match=r"'text_model.encoder.layers.0.layer_norm1' \(causal=False, behaves "
                       r"causal\).*causal_probe=inputs.*causal=True/False"):
        autonormify(untouched, "autonorm", check_causal=kw)
    assert isinstance(untouched.text_model.final_layer_norm, nn.LayerNorm)  # refused before any change
    autonormify(bart(), "autonorm", check_causal=_full("bart"))  # where they agree, it converts


def test_torch_decoder_is_causal_only_through_its_mask():
    "nn.Transformer's decoder: causal with a causal tgt_mask; without it (or with the bare hint) it looks ahead."
    kw = _full("nn.Transformer")
    assert probe_causal(torch_transformer(), kw)["decoder.norm"] is True
    for no_mask in ({}, {"tgt_is_causal": True}):
        call = {**{k: v for k, v in kw.items() if k != "tgt_mask"}, **no_mask}
        flags = probe_causal(torch_transformer(), call)
        assert not any(flags.values()), flags
        with pytest.raises(ValueError, match=r"'decoder.norm' \(causal=True, behaves non-causal\)"):
            autonormify(torch_transformer(), "autonorm", check_causal=call)


def bert():
    torch.manual_seed(0)
    return hf.BertModel(hf.BertConfig(vocab_size=V, hidden_size=D, num_hidden_layers=1, num_attention_heads=2,
                                      intermediate_size=32, hidden_dropout_prob=0.0))


def test_bidirectional_encoder_and_decoders_probe():
    "BERT probes non-causal at every site (its embedding LayerNorm too: the stream decides); decoders causal."
    ids = _ids(2, 6, 3)
    assert set(probe_causal(bert(), dict(input_ids=ids)).values()) == {False}
    for name, (make, targets) in DECODERS.items():
        assert set(probe_causal(make(), dict(input_ids=ids), targets=targets).values()) == {True}, name


@pytest.mark.parametrize("inputs, says", [
    (None, "inputs=None (NoneType) is not a model call; allowed"),
    ([torch.zeros(2, 3)], "(list) is not a model call"),
    ({}, "inputs={} (dict) is not a model call"),
    (dict(input_ids=torch.tensor([[4], [5]])), "'input_ids' has 1 position(s) (shape (2, 1))"),
    (dict(input_ids=torch.full((2, 5), 4)), "token ids are all [4]"),
    (dict(input_ids=_ids(2, 5, 0), attention_mask=_keep(2, 5, [4, 5]).long()),
     "attention_mask marks the last position as padding"),
])
def test_probe_refuses_what_it_cannot_probe(inputs, says):
    with pytest.raises((TypeError, ValueError)) as e:
        probe_causal(bert(), inputs)
    assert says in str(e.value), str(e.value)


def test_probe_and_causal_together_refused():
    with pytest.raises(ValueError, match="causal=True and causal_probe= both set"):
        autonormify(gpt2(), "autonorm", causal=True, causal_probe=dict(input_ids=_ids(2, 6, 3)))
    with pytest.raises(TypeError, match="model='gpt2'"):
        probe_causal("gpt2", dict(input_ids=_ids(2, 6, 3)))
