"""A download killed mid-transfer (SIGKILL: no cleanup code runs) never leaves a file with the final
name; the next download removes the leftover partial file and completes."""
import hashlib, http.server, os, signal, subprocess, sys, threading, time
from pathlib import Path

import pytest

from autonorm_explorer.data.sources import download_file, fetch_file, DatasetUnavailableError

PAYLOAD = os.urandom(1 << 20)


@pytest.fixture
def server():
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200); self.send_header("Content-Length", str(len(PAYLOAD))); self.end_headers()
            if self.path == "/slow":                    # half the body, then stall
                self.wfile.write(PAYLOAD[: len(PAYLOAD) // 2]); self.wfile.flush(); time.sleep(30)
            else: self.wfile.write(PAYLOAD)
        def log_message(self, *a): pass
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{srv.server_address[1]}"
    srv.shutdown()


def test_killed_download_leaves_nothing_complete(server, tmp_path):
    dest = tmp_path / "big.bin"
    code = f"from autonorm_explorer.data.sources import download_file; download_file({server + '/slow'!r}, {str(dest)!r}, timeout=60)"
    proc = subprocess.Popen([sys.executable, "-c", code])
    try:
        deadline = time.time() + 30
        while time.time() < deadline:   # wait until the partial file holds data
            parts = list(tmp_path.glob(".big.bin.part-*"))
            if parts and parts[0].stat().st_size > 0: break
            time.sleep(0.05)
        else: pytest.fail("the download never started writing")
    finally:
        proc.send_signal(signal.SIGKILL); proc.wait()
    assert not dest.exists() and not (tmp_path / "big.bin.sha256").exists()
    assert all(p.name.startswith(".big.bin.part-") for p in tmp_path.iterdir())   # only a hidden partial file
    download_file(server + "/ok", dest, hashlib.sha256(PAYLOAD).hexdigest(), len(PAYLOAD))
    assert dest.read_bytes() == PAYLOAD
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.bin", "big.bin.sha256"]   # the stale part is gone


def test_checksum_mismatch_raises_and_leaves_no_file(server, tmp_path):
    with pytest.raises(ValueError, match="SHA-256"):
        download_file(server + "/ok", tmp_path / "f.bin", "f" * 64)
    assert list(tmp_path.iterdir()) == []


def test_size_mismatch_raises_and_leaves_no_file(server, tmp_path):
    with pytest.raises(ValueError, match="expected 5"):
        download_file(server + "/ok", tmp_path / "f.bin", size=5)
    assert list(tmp_path.iterdir()) == []


def test_file_url_works_too(tmp_path):
    src = tmp_path / "src.bin"; src.write_bytes(b"hello")
    out = download_file(src.as_uri(), tmp_path / "out" / "dst.bin", hashlib.sha256(b"hello").hexdigest(), 5)
    assert out.read_bytes() == b"hello"


def test_download_false_is_a_clear_error(tmp_path):
    with pytest.raises(DatasetUnavailableError, match="download=False") as e:
        fetch_file("mnist", "train-images-idx3-ubyte.gz", root=tmp_path, download=False)
    msg = str(e.value)
    assert "https://storage.googleapis.com/cvdf-datasets/mnist/train-images-idx3-ubyte.gz" in msg
    assert str((tmp_path / "mnist" / "train-images-idx3-ubyte.gz").resolve()) in msg and "440fcabf" in msg
