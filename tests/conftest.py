"""Every test starts from the same random state: Python, NumPy and PyTorch seeded with `test_seed()`
(0, or `$AUTONORM_TEST_SEED` in a flake hunt), so random data a test draws without its own generator is
fixed too, and a hunt can vary the whole suite's data through one variable.

Under pytest-xdist (`make test` runs two workers, `--dist loadfile`: each test file whole in one worker) each
worker computes on one CPU thread, and so do the kernels and scripts its tests start (`OMP_NUM_THREADS`,
`MKL_NUM_THREADS`, unless already set): two workers with torch's default of one thread per core would ask for
twice the cores there are. In-process this changes nothing: the test modules that compute with torch already
set one thread at import, and collection imports every module in every worker as in a serial run. A test that
needs its own count sets it (tests/test_harness_train.py and test_harness_sweep.py pass `OMP_NUM_THREADS=1`).

Nothing here is shared between two workers that run different files at once: servers (JupyterLab, Voilà, the
private Slurm of tests/slurm_cluster.py) listen on free ports with their files in the test's temporary folder,
outputs go to `tmp_path`, and the screenshots in tests/artifacts/ have one writer each."""
import os

if os.environ.get("PYTEST_XDIST_WORKER"):
    for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_var, "1")

import pytest  # noqa: E402
import torch  # noqa: E402

from autonorm_explorer.core import seeds  # noqa: E402

if os.environ.get("PYTEST_XDIST_WORKER"):
    torch.set_num_threads(1)


@pytest.fixture(autouse=True)
def _fixed_random_state():
    seeds.seed_everything(seeds.test_seed())
    yield


# Under xdist each test file goes whole to whichever worker is free, in collection order: a long file handed out
# last is the run's tail (the docs site once finished alone, 15 min after everything else). The longest files,
# by the suite's --durations, go first; the order inside a file, and the rest of the order, do not change.
LONGEST_FIRST = ("test_docs_site.py", "test_harness_experiments.py", "test_slurm.py", "test_user_guide.py",
                 "test_wheel_install.py", "test_app_browser.py", "test_harness_sweep.py", "test_gate_widgets.py",
                 "test_widgets_browser.py", "test_gate_widgets_browser.py", "test_course_autonorm.py",
                 "test_course_depth.py")


def pytest_collection_modifyitems(config, items):
    if os.environ.get("PYTEST_XDIST_WORKER"):
        rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
        items.sort(key=lambda item: rank.get(item.path.name, len(rank)))   # stable: files stay whole, in order
