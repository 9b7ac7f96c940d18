"""A private, single-node Slurm for the tests: munged, slurmctld and slurmd of Debian's `slurm-wlm` and `munge`,
each started with its own files in one folder (config, key, sockets, state, logs), on free ports.

Nothing outside that folder is read or written: `/etc/slurm` and `/etc/munge` are not used (a machine's own Slurm,
if it has one, is untouched). Client commands (`sbatch`, `squeue`, `scancel`, and submitit, which calls them) find
this cluster through `SLURM_CONF`, which `LocalSlurm.env` sets. The node has this machine's CPUs and memory, no GPU.
Accounting is off (no slurmdbd): `sacct` answers "accounting storage is disabled", and submitit then decides a job is
done from its result file, which every finished cell writes.
"""
from __future__ import annotations

import getpass, os, shutil, signal, socket, subprocess, time
from pathlib import Path

DAEMONS = ("munged", "slurmctld", "slurmd")
CLIENTS = ("sbatch", "squeue", "scancel", "sinfo")


def missing_programs() -> list[str]:
    "The Slurm and munge programs this machine lacks (empty when a local cluster can start)."
    return [p for p in DAEMONS + CLIENTS if not (shutil.which(p) or Path("/usr/sbin", p).exists())]


def _program(name: str) -> str:
    return shutil.which(name) or str(Path("/usr/sbin", name))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def slurm_conf(folder: Path, host: str, user: str, cpus: int, memory_mb: int) -> str:
    "A minimal slurm.conf: one node (this host), one partition `test`, everything under `folder`."
    f = folder.resolve()
    return "\n".join([
        "ClusterName=autonormtest", f"SlurmctldHost={host}",
        f"SlurmctldPort={_free_port()}", f"SlurmdPort={_free_port()}",
        "AuthType=auth/munge", "CredType=cred/munge", f"AuthInfo=socket={f}/munge/munge.socket",
        f"SlurmUser={user}", f"SlurmdUser={user}",
        f"StateSaveLocation={f}/state", f"SlurmdSpoolDir={f}/spool",
        f"SlurmctldPidFile={f}/slurmctld.pid", f"SlurmdPidFile={f}/slurmd.pid",
        f"SlurmctldLogFile={f}/log/slurmctld.log", f"SlurmdLogFile={f}/log/slurmd.log",
        # no cgroups in a container: processes tracked by their parent pid, no task binding
        "ProctrackType=proctrack/linuxproc", "TaskPlugin=task/none",
        "SelectType=select/cons_tres", "SelectTypeParameters=CR_CPU",
        "AccountingStorageType=accounting_storage/none", "JobCompType=jobcomp/none",
        "JobAcctGatherType=jobacct_gather/none", "MpiDefault=none", "ReturnToService=2",
        "SchedulerType=sched/backfill", "MaxArraySize=1001",
        f"NodeName={host} CPUs={cpus} RealMemory={memory_mb} State=UNKNOWN",
        f"PartitionName=test Nodes={host} Default=YES MaxTime=INFINITE State=UP", "",
    ])


class LocalSlurm:
    "Start munged, slurmctld and slurmd in `folder` (a context manager); `env` is what a Slurm client needs."

    def __init__(self, folder: str | os.PathLike, timeout_s: float = 60):
        self.folder, self.timeout_s = Path(folder).resolve(), timeout_s
        self.conf = self.folder / "slurm.conf"
        self.env = dict(os.environ, SLURM_CONF=str(self.conf))
        self.env.pop("SLURM_JOB_ID", None)
        self.env.pop("SLURM_ARRAY_JOB_ID", None)

    def __enter__(self) -> "LocalSlurm":
        f = self.folder
        for sub in ("state", "spool", "log", "munge"):
            (f / sub).mkdir(parents=True, exist_ok=True)
        key = f / "munge" / "munge.key"
        key.write_bytes(os.urandom(1024))
        key.chmod(0o400)
        (f / "munge").chmod(0o755)
        host = socket.gethostname().split(".")[0]
        memory_mb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2**20 - 1024
        self.conf.write_text(slurm_conf(f, host, getpass.getuser(), os.cpu_count() or 1, memory_mb))
        try:
            self._run(_program("munged"), "--force", f"--key-file={key}", f"--socket={f}/munge/munge.socket",
                      f"--pid-file={f}/munge/munged.pid", f"--log-file={f}/log/munged.log",
                      f"--seed-file={f}/munge/seed")
            self._run(_program("slurmctld"), "-f", str(self.conf))
            self._run(_program("slurmd"), "-f", str(self.conf))
            self._wait_idle()
        except BaseException:
            self.__exit__()
            raise
        return self

    def _run(self, *cmd: str) -> None:
        r = subprocess.run(cmd, env=self.env, capture_output=True, text=True, timeout=60)
        if r.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed ({r.returncode}): {r.stderr}{r.stdout}\n{self.logs()}")

    def _wait_idle(self) -> None:
        t0 = time.time()
        while time.time() - t0 < self.timeout_s:
            r = self.client("sinfo", "-h", "-o", "%T", check=False)
            if r.returncode == 0 and r.stdout.strip() == "idle":
                return
            time.sleep(0.5)
        raise RuntimeError(f"the local Slurm node did not become idle in {self.timeout_s} s\n{self.logs()}")

    def restart_node(self, down_s: float = 2.0) -> None:
        "Kill slurmd with SIGKILL (a node crash, as far as Slurm can tell), wait `down_s`, start it again."
        pid = int((self.folder / "slurmd.pid").read_text().split()[0])
        os.kill(pid, signal.SIGKILL)
        time.sleep(down_s)
        self._run(_program("slurmd"), "-f", str(self.conf))

    def running(self) -> int:
        "How many of this cluster's jobs (array tasks included) are running now, by squeue."
        r = self.client("squeue", "-h", "-r", "-t", "R", "-o", "%i", check=False)
        return len(r.stdout.split()) if r.returncode == 0 else 0

    def client(self, *cmd: str, check: bool = True) -> subprocess.CompletedProcess:
        "Run a Slurm client command against this cluster."
        r = subprocess.run(cmd, env=self.env, capture_output=True, text=True, timeout=60)
        if check and r.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed: {r.stderr}")
        return r

    def logs(self) -> str:
        "The last lines of every daemon's log (for failure messages)."
        out = []
        for p in sorted((self.folder / "log").glob("*.log")):
            out.append(f"--- {p.name}\n" + "\n".join(p.read_text(errors="replace").splitlines()[-15:]))
        return "\n".join(out)

    def __exit__(self, *exc) -> None:
        f = self.folder
        if self.conf.exists():
            self.client("scancel", "--user", getpass.getuser(), check=False)
        for pid_file in (f / "slurmd.pid", f / "slurmctld.pid", f / "munge" / "munged.pid"):
            try:
                pid = int(pid_file.read_text().split()[0])
            except (OSError, ValueError, IndexError):
                continue
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                continue
            for _ in range(100):                        # up to 10 s for a clean exit, then SIGKILL
                try:
                    os.kill(pid, 0)
                except ProcessLookupError:
                    break
                time.sleep(0.1)
            else:
                os.kill(pid, signal.SIGKILL)
