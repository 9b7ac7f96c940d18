"""Every test starts from the same random state: Python, NumPy and PyTorch seeded with `test_seed()`
(0, or `$AUTONORM_TEST_SEED` in a flake hunt), so random data a test draws without its own generator is
fixed too, and a hunt can vary the whole suite's data through one variable."""
import pytest

from autonorm_explorer.core import seeds


@pytest.fixture(autouse=True)
def _fixed_random_state():
    seeds.seed_everything(seeds.test_seed())
    yield
