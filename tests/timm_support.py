"""Real timm for the tests, without letting its torchvision near the venv.

The package registry's only torchvision for this CPU torch is a CUDA build: its compiled library fails to
register its operators (`operator torchvision::nms does not exist`), and timm imports torchvision at import time.
timm's models need none of torchvision's compiled ops (they are detection ops), so `make setup` installs timm and
torchvision with `--no-deps` into `.make/timm-lib` (pinned by tests/timm-requirements.txt), and `load_timm()` puts
that folder on sys.path, declares the two operator schemas torchvision's Python side registers fake kernels for,
then imports timm. The schemas only let the import finish; calling either op would fail (no kernel), which no test
does. On a machine with a working torchvision this is not needed: `import timm` works as usual."""
import os, sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TIMM_LIB = ROOT / ".make" / "timm-lib"
_SCHEMAS = ("nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor",
            "qnms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
_LIBRARY = []  # keeps the torch.library alive (its definitions vanish with it)


def load_timm():
    "timm, imported from .make/timm-lib; skipped on a laptop without it, a failure under CI=true."
    if "timm" in sys.modules:
        return sys.modules["timm"]
    if not (TIMM_LIB / "timm").is_dir():
        why = f"{TIMM_LIB} is missing (make setup installs it)"
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true but {why}", pytrace=False)
        pytest.skip(why, allow_module_level=True)      # it is called where a test module is imported
    import torch
    if str(TIMM_LIB) not in sys.path:
        sys.path.append(str(TIMM_LIB))          # last: it can never shadow a package of the venv
    try:
        torch.ops.torchvision.nms               # a working torchvision is already loaded: nothing to declare
    except (AttributeError, RuntimeError):
        lib = torch.library.Library("torchvision", "DEF")
        for schema in _SCHEMAS:
            lib.define(schema)
        _LIBRARY.append(lib)
    import timm
    return timm
