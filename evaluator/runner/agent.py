"""The runner agent's main process: configuration, one worker per accelerator, heartbeats.

    python -m evaluator.runner --site URL (--token-file FILE | --token T) [--chip SLUG]
                               [--gpus 0,1,...] [--concurrency N] [--fake-harness]

Draining or disabling the runner on the site stops it gracefully: the heartbeat sees the new
state and the workers get a warm shutdown (the running job finishes, no new one is taken).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import platform
import signal
import socket
import subprocess
import sys
import threading
from importlib import metadata

from evaluator.runner import AGENT_VERSION
from evaluator.runner.client import ApiError, SiteClient

log = logging.getLogger("kgb.runner")

VERSIONED_PACKAGES = ("torch", "triton", "celery", "kombu", "requests", "numpy")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m evaluator.runner", description=__doc__.split("\n\n")[0])
    parser.add_argument("--site", required=True, help="base URL of the site, e.g. https://kgb.example.org")
    token = parser.add_mutually_exclusive_group()
    token.add_argument("--token", help="runner token (visible in the process list: prefer --token-file)")
    token.add_argument("--token-file", help="file holding the runner token")
    parser.add_argument("--chip", help="refuse to start unless the token's runner is for this chip")
    parser.add_argument("--gpus", help="comma-separated device indices: one worker per device (CUDA_VISIBLE_DEVICES)")
    parser.add_argument("--concurrency", type=int, default=1, help="worker processes when no --gpus are given")
    parser.add_argument(
        "--fake-harness",
        action="store_true",
        default=os.environ.get("KGB_RUNNER_FAKE_HARNESS") == "1",
        help="evaluate nothing, answer 'correct' (dispatch tests only)",
    )
    parser.add_argument("--loglevel", default="INFO")
    args = parser.parse_args(argv)
    if not args.token and not args.token_file:
        args.token = os.environ.pop("KGB_RUNNER_TOKEN", None)
        if not args.token:
            parser.error("give --token-file, --token or KGB_RUNNER_TOKEN")
    if args.concurrency < 1:
        parser.error("--concurrency must be at least 1")
    return args


def read_token(args: argparse.Namespace) -> str:
    if args.token_file:
        with open(args.token_file, encoding="utf-8") as handle:
            return handle.read().strip()
    return args.token


def _devices() -> list[str]:
    try:
        listing = subprocess.run(
            ["nvidia-smi", "--query-gpu=index,name,driver_version,memory.total", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        )
    except (OSError, subprocess.SubprocessError):
        return []
    return [line.strip() for line in listing.stdout.splitlines() if line.strip()]


def environment_fingerprint(args: argparse.Namespace, gpus: list[str]) -> dict:
    versions = {"python": platform.python_version(), "agent": AGENT_VERSION}
    for package in VERSIONED_PACKAGES:
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            continue
    return {
        "hostname": socket.gethostname(),
        "platform": platform.platform(),
        "versions": versions,
        "devices": _devices(),
        "workers": [f"gpu{gpu}" for gpu in gpus] or [f"x{args.concurrency}"],
        "fake_harness": args.fake_harness,
    }


def _start_worker(args: argparse.Namespace, token: str, config: dict, gpu: str | None) -> subprocess.Popen:
    environment = dict(os.environ)
    environment.pop("KGB_RUNNER_TOKEN", None)
    if gpu is not None:
        environment["CUDA_VISIBLE_DEVICES"] = gpu
    if config["device_type"] == "cpu":
        environment["TRITON_INTERPRET"] = "1"
    else:  # an interpreter flag left in the operator's shell must not reach a device worker
        environment.pop("TRITON_INTERPRET", None)
    suffix = f"gpu{gpu}" if gpu is not None else "w"
    settings = {
        "site": args.site,
        "token": token,
        "config": config,
        "hostname": f"kgb-{config['runner']}-{suffix}@{socket.gethostname()}",
        "concurrency": 1 if gpu is not None else args.concurrency,
        "fake_harness": args.fake_harness,
        "loglevel": args.loglevel,
    }
    # its own process group, so that a hung worker can be killed together with its pool
    process = subprocess.Popen(
        [sys.executable, "-m", "evaluator.runner.worker"],
        stdin=subprocess.PIPE,
        env=environment,
        text=True,
        start_new_session=True,
    )
    process.stdin.write(json.dumps(settings) + "\n")
    process.stdin.close()
    return process


def broker_identity(config: dict) -> str | None:
    """None when the broker is unreachable; for Redis its server run id (it changes on every
    restart, so even a restart shorter than the check interval is seen); otherwise "up"."""
    from kombu import Connection

    try:
        with Connection(
            config["broker_url"], transport_options=config.get("broker_transport_options") or {}, connect_timeout=3
        ) as connection:
            connection.ensure_connection(max_retries=0)
            if connection.transport_cls in ("redis", "rediss"):
                return str(connection.default_channel.client.info("server")["run_id"])
            return "up"
    except Exception:  # any failure to connect counts as down
        return None


class Agent:
    """Supervises the workers: restarts one that exits, and restarts all of them once the broker
    comes back after an outage (Celery workers on Redis can stop consuming after a broker restart,
    celery/celery#8030 and #9054; a fresh worker always consumes)."""

    def __init__(self, args: argparse.Namespace):
        self.args = args
        self.token = read_token(args)
        self.client = SiteClient(args.site, self.token, max_wait_s=float("inf"))
        self.workers: dict[str | None, subprocess.Popen] = {}
        self.stopping = threading.Event()
        self.check_interval_s = float(os.environ.get("KGB_RUNNER_SUPERVISE_S", "10"))

    def stop_workers(self, reason: str, sig: int = signal.SIGTERM) -> None:
        if not self.stopping.is_set():
            log.warning("stopping workers: %s", reason)
        self.stopping.set()
        for worker in self.workers.values():
            if worker.poll() is None:
                worker.send_signal(sig)

    def heartbeat_loop(self, interval_s: float, environment: dict) -> None:
        while not self.stopping.is_set():
            try:
                answer = self.client.heartbeat(environment)
            except ApiError as error:
                self.stop_workers(f"heartbeat refused ({error}): disabled or rotated token")
                return
            if answer.get("state") == "draining":
                self.stop_workers("the runner is draining: finishing the current jobs")
                return
            self.stopping.wait(interval_s)

    def restart_worker(self, slot: str | None, config: dict) -> None:
        worker = self.workers[slot]
        if worker.poll() is None:
            worker.terminate()  # warm shutdown: a running job may finish
            try:
                worker.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(worker.pid, signal.SIGKILL)  # its job comes back from the broker
                worker.wait()
        if not self.stopping.is_set():
            self.workers[slot] = _start_worker(self.args, self.token, config, slot)

    def supervise(self, config: dict) -> int:
        watch_broker = not config["broker_url"].startswith(("filesystem://", "memory://"))
        last_seen = broker_identity(config) if watch_broker else None
        while not self.stopping.is_set():
            if watch_broker:
                identity = broker_identity(config)
                if identity is not None and identity != last_seen:
                    log.warning("the broker is back after an outage or a restart: restarting the workers")
                    for slot in list(self.workers):
                        self.restart_worker(slot, config)
                last_seen = identity
            for slot, worker in list(self.workers.items()):
                if worker.poll() is not None and not self.stopping.is_set():
                    log.warning("worker %s exited with %s: restarting it", slot or "w", worker.returncode)
                    self.workers[slot] = _start_worker(self.args, self.token, config, slot)
            self.stopping.wait(self.check_interval_s)
        codes = [worker.wait() for worker in self.workers.values()]
        return max(codes, default=0)

    def run(self) -> int:
        config = self.client.config()
        if self.args.chip and self.args.chip != config["chip"]:
            log.error("this token's runner is for chip %s, not %s", config["chip"], self.args.chip)
            return 2
        if config.get("state") != "active":
            log.error("runner %s is %s on the site: not starting", config["runner"], config.get("state"))
            return 3
        gpus = [gpu.strip() for gpu in self.args.gpus.split(",") if gpu.strip()] if self.args.gpus else []
        log.info(
            "runner %s for %s: queue %s, %s",
            config["runner"],
            config["chip"],
            config["queue"],
            f"one worker per GPU {gpus}" if gpus else f"{self.args.concurrency} worker process(es)",
        )
        self.workers = {slot: _start_worker(self.args, self.token, config, slot) for slot in (gpus or [None])}
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, lambda number, _frame: self.stop_workers(f"signal {number}"))
        environment = environment_fingerprint(self.args, gpus)
        threading.Thread(
            target=self.heartbeat_loop,
            args=(config["heartbeat_interval_s"], environment),
            daemon=True,
            name="heartbeat",
        ).start()
        return self.supervise(config)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    logging.basicConfig(level=args.loglevel, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    return Agent(args).run()
