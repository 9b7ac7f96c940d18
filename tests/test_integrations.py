"""`AutoNormCallback` (transformers.Trainer) and `AutoNormLightningCallback` (Lightning) on a real model: a tiny
GPT-2 built from its config (random init, nothing downloaded), converted by `autonormify`.

Oracles: the uninterrupted run (a run resumed from its epoch-1 checkpoint must end with the same weights, gate
log and freeze history), the optimizer's own param groups, Trainer's own step counter. Negative controls: the
forward clock counts micro-batches; an optimizer built again on resume does not fit the saved state unless the
frozen selectors leave it."""
import math
import warnings

import pytest
import torch
import torch.nn as nn
import transformers as hf

import autonorm_explorer.norms.integrations as integrations
from autonorm_explorer.norms.autonorm import TauAnneal, gated_sites
from autonorm_explorer.norms.convert import autonormify
from autonorm_explorer.norms.gates import GateLogger
from autonorm_explorer.norms.schedule import GateFreezer, selector_parameters

import lightning.pytorch as L  # noqa: E402  (a dev dependency: never skipped)
ROWS, BATCH, ACCUMULATE = 16, 4, 2            # 2 optimizer updates per epoch
UPDATES_PER_EPOCH = ROWS // (BATCH * ACCUMULATE)


def tiny_gpt2(noise=True, seed=0):
    torch.manual_seed(seed)
    cfg = hf.GPT2Config(vocab_size=50, n_positions=16, n_embd=16, n_layer=2, n_head=2,
                        resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0)
    model, _ = autonormify(hf.GPT2LMHeadModel(cfg), "autonorm", noise=noise,
                           tau_schedule=TauAnneal(1.0, 0.1, 0.1, 1))
    return model


def rows():
    g = torch.Generator().manual_seed(0)
    return [{"input_ids": t, "labels": t} for t in torch.randint(0, 50, (ROWS, 8), generator=g)]


def in_optimizer(opt) -> set[int]:
    return {id(p) for g in opt.param_groups for p in g["params"]}


# ------------------------------------------------------------------ transformers.Trainer
def hf_trainer(tmp, model, callback, epochs=3, **kw):
    args = hf.TrainingArguments(str(tmp), per_device_train_batch_size=BATCH, gradient_accumulation_steps=ACCUMULATE,
                                num_train_epochs=epochs, learning_rate=1e-3, report_to=[], use_cpu=True,
                                disable_tqdm=True, seed=0, logging_steps=1, save_strategy=kw.pop("save", "no"), **kw)
    return hf.Trainer(model, args, train_dataset=rows(), callbacks=[callback])


@pytest.mark.parametrize("clock, ticks", [("optimizer", 1), ("forward", ACCUMULATE)])
def test_hf_tau_clock_counts_updates(tmp_path, clock, ticks):
    "τ's step after training is Trainer's update count; the forward clock (negative control) counts micro-batches."
    cb = integrations.AutoNormCallback(tau_clock=clock)
    trainer = hf_trainer(tmp_path, tiny_gpt2(), cb, epochs=2)
    trainer.train()
    steps = trainer.state.global_step
    assert steps == 2 * UPDATES_PER_EPOCH
    assert {m.train_steps for _, m in gated_sites(trainer.model)} == {steps * ticks}
    assert sorted(cb.logger.epoch_log.epoch.unique()) == [1, 2]
    assert len(cb.logger.step_log) == steps * len(gated_sites(trainer.model))


class Snapshot(hf.TrainerCallback):
    "The selectors' values at the end of epoch 1 (runs after AutoNormCallback, which froze them)."

    def on_epoch_end(self, args, state, control, model=None, **kwargs):
        if round(state.epoch) == 1:
            self.values = {n: p.detach().clone() for n, p in selector_parameters(model).items()}


def test_hf_freeze_leaves_the_optimizer_and_selectors_stay(tmp_path):
    "AutoNorm-S at epoch 1: selectors out of Trainer's optimizer, unchanged afterwards; gate metrics logged."
    cb, snap = integrations.AutoNormCallback(freezer=GateFreezer(t_freeze=1, eps_h=0.1)), Snapshot()
    trainer = hf_trainer(tmp_path, tiny_gpt2(), cb, epochs=2)
    trainer.add_callback(snap)
    trainer.train()
    assert cb.freezer.decision == "frozen" and cb.freezer.frozen_epoch == 1
    sel = selector_parameters(trainer.model)
    assert not (in_optimizer(trainer.optimizer) & {id(p) for p in sel.values()})
    assert all(torch.equal(snap.values[n], p) for n, p in sel.items())
    assert any("gate_entropy" in r and r.get("gate_frozen") == 1.0 for r in trainer.state.log_history)
    # a second train() from update 0 with the same callback would mix two runs' logs: refused
    with pytest.raises(ValueError, match="already holds"):
        trainer.train()


@pytest.mark.parametrize("restore_flag", [False, True])
def test_hf_resume_equals_uninterrupted(tmp_path, restore_flag):
    """Resumed from the epoch-1 checkpoint (after the freeze), the run ends with the uninterrupted run's weights,
    gate log and freeze history; Trainer's rebuilt optimizer holds no frozen selector."""
    rule = dict(t_freeze=1, eps_h=0.1)
    whole_cb = integrations.AutoNormCallback(freezer=rule)
    whole = hf_trainer(tmp_path / "a", tiny_gpt2(noise=False), whole_cb, save="epoch")
    whole.train()
    ckpt = tmp_path / "a" / f"checkpoint-{UPDATES_PER_EPOCH}"
    assert ckpt.is_dir()
    cb = integrations.AutoNormCallback(freezer=rule)
    again = hf_trainer(tmp_path / "b", tiny_gpt2(noise=False, seed=1), cb,
                       restore_callback_states_from_checkpoint=restore_flag)
    again.train(resume_from_checkpoint=str(ckpt))
    for (n, a), b in zip(whole.model.named_parameters(), again.model.parameters()):
        torch.testing.assert_close(a, b, atol=1e-6, rtol=1e-6, msg=n)
    used = [c for c in again.callback_handler.callbacks if type(c).__name__ == "AutoNormCallback"]
    assert len(used) == 1 and (used[0] is cb) == (not restore_flag)
    assert used[0].freezer.history == whole_cb.freezer.history
    assert used[0].logger.epoch_log.equals(whole_cb.logger.epoch_log)
    sel = {id(p) for p in selector_parameters(again.model).values()}
    assert not (in_optimizer(again.optimizer) & sel)
    assert {m.train_steps for _, m in gated_sites(again.model)} == {again.state.global_step}


def test_hf_partial_epoch_is_not_closed(tmp_path):
    "max_steps ends inside epoch 2: only epoch 1 is closed, and the freeze rule (t_freeze=2) does not decide."
    cb = integrations.AutoNormCallback(freezer=GateFreezer(t_freeze=2, eps_h=0.1))
    trainer = hf_trainer(tmp_path, tiny_gpt2(), cb, max_steps=UPDATES_PER_EPOCH + 1)
    trainer.train()
    assert sorted(cb.logger.epoch_log.epoch.unique()) == [1]
    assert cb.freezer.decision is None


def test_hf_resume_without_gate_state_warns(tmp_path):
    "A checkpoint of a run that had no AutoNormCallback: the callback says so instead of pretending."
    plain = hf_trainer(tmp_path / "a", tiny_gpt2(), hf.TrainerCallback(), epochs=1, save="epoch")
    plain.train()
    cb = integrations.AutoNormCallback()
    again = hf_trainer(tmp_path / "b", tiny_gpt2(), cb, epochs=2)
    with pytest.warns(UserWarning, match="without its gate state"):
        again.train(resume_from_checkpoint=str(tmp_path / "a" / f"checkpoint-{UPDATES_PER_EPOCH}"))


def test_hf_refuses_a_model_without_sites(tmp_path):
    torch.manual_seed(0)
    cfg = hf.GPT2Config(vocab_size=50, n_positions=16, n_embd=16, n_layer=1, n_head=2)
    trainer = hf_trainer(tmp_path, hf.GPT2LMHeadModel(cfg), integrations.AutoNormCallback(), epochs=1)
    with pytest.raises(ValueError, match="no gated norm site"):
        trainer.train()


# ------------------------------------------------------------------ Lightning
class LitLM(L.LightningModule):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def training_step(self, batch, batch_idx):
        return self.model(input_ids=batch["input_ids"], labels=batch["labels"]).loss

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=1e-3)   # every parameter, as users write it


def lit_trainer(tmp, epochs, **kw):
    return L.Trainer(max_epochs=epochs, accumulate_grad_batches=ACCUMULATE, accelerator="cpu", devices=1,
                     logger=False, enable_progress_bar=False, enable_model_summary=False, deterministic=True,
                     default_root_dir=str(tmp), **kw)


def loader():
    return torch.utils.data.DataLoader(rows(), batch_size=BATCH, shuffle=False)


def test_lightning_tau_clock_and_freeze(tmp_path):
    cb = integrations.AutoNormLightningCallback(freezer=GateFreezer(t_freeze=1, eps_h=0.1))
    lit = LitLM(tiny_gpt2())
    trainer = lit_trainer(tmp_path, 2, callbacks=[cb], enable_checkpointing=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        trainer.fit(lit, loader())
    assert trainer.global_step == 2 * UPDATES_PER_EPOCH
    assert {m.train_steps for _, m in gated_sites(lit)} == {trainer.global_step}
    assert cb.freezer.decision == "frozen" and sorted(cb.logger.epoch_log.epoch.unique()) == [1, 2]
    sel = {id(p) for p in selector_parameters(lit).values()}
    assert not (in_optimizer(trainer.optimizers[0]) & sel)


def test_lightning_resume_equals_uninterrupted(tmp_path):
    "fit(ckpt_path=epoch 1's checkpoint) ends as the uninterrupted fit; the saved optimizer state fits."
    rule = dict(t_freeze=1, eps_h=0.1)
    ck = L.callbacks.ModelCheckpoint(dirpath=str(tmp_path / "ck"), save_top_k=-1, every_n_epochs=1,
                                     filename="{epoch}")
    whole_cb = integrations.AutoNormLightningCallback(freezer=rule)
    whole = LitLM(tiny_gpt2(noise=False))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lit_trainer(tmp_path, 3, callbacks=[whole_cb, ck]).fit(whole, loader())
        cb = integrations.AutoNormLightningCallback(freezer=rule)
        again = LitLM(tiny_gpt2(noise=False, seed=1))
        trainer = lit_trainer(tmp_path, 3, callbacks=[cb], enable_checkpointing=False)
        trainer.fit(again, loader(), ckpt_path=str(tmp_path / "ck" / "epoch=0.ckpt"))
    for (n, a), b in zip(whole.named_parameters(), again.parameters()):
        torch.testing.assert_close(a, b, atol=1e-6, rtol=1e-6, msg=n)
    assert cb.freezer.history == whole_cb.freezer.history
    assert cb.logger.epoch_log.equals(whole_cb.logger.epoch_log)
    assert {m.train_steps for _, m in gated_sites(again)} == {trainer.global_step}


def test_callbacks_are_built_once_and_refuse_bad_settings():
    assert integrations.AutoNormCallback is integrations.AutoNormCallback
    assert issubclass(integrations.AutoNormCallback, hf.TrainerCallback)
    assert issubclass(integrations.AutoNormLightningCallback, L.Callback)
    with pytest.raises(ValueError, match="tau_clock='epoch'"):
        integrations.AutoNormCallback(tau_clock="epoch")
    with pytest.raises(TypeError, match="freezer=3"):
        integrations.AutoNormLightningCallback(freezer=3)
    with pytest.raises(AttributeError, match="no attribute 'AutoNormCallbak'"):
        integrations.AutoNormCallbak  # noqa: B018


def test_lightning_resume_needs_the_refreeze(tmp_path, monkeypatch):
    """Negative control of the test above: without taking the frozen selectors out of the optimizer that
    configure_optimizers rebuilt, Lightning cannot load the checkpoint's optimizer state."""
    ck = L.callbacks.ModelCheckpoint(dirpath=str(tmp_path / "ck"), save_top_k=-1, every_n_epochs=1,
                                     filename="{epoch}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lit_trainer(tmp_path, 1, callbacks=[integrations.AutoNormLightningCallback(freezer=dict(t_freeze=1)), ck]
                    ).fit(LitLM(tiny_gpt2()), loader())
        monkeypatch.setattr(integrations.GateTraining, "refreeze", lambda self, model, optimizer: 0)
        trainer = lit_trainer(tmp_path, 2, callbacks=[integrations.AutoNormLightningCallback(freezer=dict(t_freeze=1))],
                              enable_checkpointing=False)
        with pytest.raises(ValueError, match="size"):
            trainer.fit(LitLM(tiny_gpt2()), loader(), ckpt_path=str(tmp_path / "ck" / "epoch=0.ckpt"))
