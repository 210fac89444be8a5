"""How a command's objects live and end (sitegen/gc_and_exit.py): collect runs with few cycle
collections, and the ``sitegen`` process ends after its exit handlers without tearing down
what the command made. The ending is watched from outside, in a process of its own."""

from __future__ import annotations

import gc
import pstats
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.kit.project import forget_builds, run_cli

# A process that keeps an object whose finaliser leaves a mark (it runs when the interpreter
# tears its modules down), registers an exit handler that leaves another, then ends the way
# ENDING says. Its command fails (no config there) so that it ends with a code of its own, 1.
SCRIPT = textwrap.dedent("""
    import atexit, sys, threading, time
    from pathlib import Path

    marks = Path(sys.argv[1])

    class Kept:
        # (What it needs is its own: module globals and builtins may be gone when a teardown
        # runs this.)
        def __init__(self, path):
            self.path, self.open = path, open

        def __del__(self):
            self.open(self.path, "w").close()

    kept = Kept(str(marks / "torn-down"))
    atexit.register(lambda: (marks / "exit-handler").write_text(""))
    if sys.argv[2] == "with-thread":
        # Runs until the main thread has ended (the interpreter's shutdown marks it so before it
        # waits for other threads), however long the command took: still running when the
        # process decides how to end. Bounded: no mark if the main thread never ends.
        def later():
            deadline = time.monotonic() + 30
            while threading.main_thread().is_alive() and time.monotonic() < deadline:
                time.sleep(0.005)
            if not threading.main_thread().is_alive():
                (marks / "thread").write_text("")
        threading.Thread(target=later).start()
    sys.argv = ["sitegen", "--config", str(marks / "nowhere" / "sitegen.yaml"), "build"]
    if ENDING == "run":
        from sitegen.cli import run
        run()
    else:
        from sitegen.cli import main
        sys.exit(main())
""")


def _end(
    tmp_path: Path, ending: str, thread: str = "alone"
) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    marks = tmp_path / ending / thread
    marks.mkdir(parents=True)
    script = SCRIPT.replace("ENDING", repr(ending))
    done = subprocess.run(
        [sys.executable, "-c", script, str(marks), thread],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        check=False,
    )
    return done, {path.name for path in marks.iterdir()}


def test_the_command_ends_after_its_exit_handlers_without_tearing_down(tmp_path: Path) -> None:
    # The usual ending, for comparison: the interpreter tears down, so the finaliser runs.
    usual, usual_marks = _end(tmp_path, "sys.exit")
    assert usual.returncode == 1 and usual_marks == {"exit-handler", "torn-down"}
    ended, marks = _end(tmp_path, "run")
    # The code main() chose and every line it printed (flushed before the end); the exit
    # handlers ran; the teardown (the finaliser of a kept object) did not.
    assert ended.returncode == 1
    assert ended.stderr.replace("/run/", "/sys.exit/") == usual.stderr
    assert ended.stderr.endswith(
        "no sitegen.yaml here; run sitegen in a site folder or pass --config\n"
        "sitegen build: 1 problem; nothing was written\n"
    )
    assert marks == {"exit-handler"}


def test_a_thread_still_running_is_waited_for(tmp_path: Path) -> None:
    """Another thread that is not a daemon (a library's writer, say) would be cut off by an
    immediate end: the process then ends the usual way, which waits for it."""
    ended, marks = _end(tmp_path, "run", "with-thread")
    assert ended.returncode == 1
    assert marks == {"thread", "exit-handler", "torn-down"}


def test_a_profiler_still_gets_the_end_it_writes_its_report_at(tmp_path: Path) -> None:
    """``python -m cProfile -o FILE -m sitegen ...`` writes its profile once the program is over:
    under a profiler (or a tracer: a debugger, coverage) the process ends the usual way."""
    report = tmp_path / "sitegen.prof"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "cProfile",
            "-o",
            str(report),
            "-m",
            "sitegen",
            "--config",
            str(tmp_path / "nowhere" / "sitegen.yaml"),
            "build",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        check=False,
    )
    # (cProfile takes the exit code for itself: it ends with 0 once the report is written.)
    assert "sitegen build: 1 problem; nothing was written" in done.stderr
    assert "cli.py" in "".join(str(key) for key in pstats.Stats(str(report)).stats)  # type: ignore[attr-defined]


# Where each command is watched: a function it calls while the collector should be off.
WATCHED = {"collect": ("sitegen.collect", "check_local"), "build": ("sitegen.site.build", "plan")}


@pytest.mark.parametrize("command", sorted(WATCHED))
def test_a_command_runs_without_the_cycle_collector_and_gives_it_back(
    project: Path, command: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While collect checks the runs and while build plans its pages, the cycle collector is
    off (gc_and_exit.long_lived_work); afterwards it is on again, also when the command fails, and
    a caller that had turned it off finds it off."""
    import importlib

    module = importlib.import_module(WATCHED[command][0])
    name = WATCHED[command][1]
    real = getattr(module, name)
    seen: list[bool] = []

    def watched(*args: object, **kwargs: object) -> object:
        seen.append(gc.isenabled())
        return real(*args, **kwargs)

    def failing(*args: object, **kwargs: object) -> object:
        seen.append(gc.isenabled())
        raise RuntimeError(f"a bug in {name}")

    if command == "build":
        assert run_cli(project, "collect") == 0
    monkeypatch.setattr(module, name, watched)
    assert gc.isenabled()
    assert run_cli(project, command) == 0
    assert seen == [False] and gc.isenabled()

    monkeypatch.setattr(module, name, failing)
    if command == "build":
        forget_builds(project)  # (a build that finds its site unchanged would not plan)
    with pytest.raises(RuntimeError):
        run_cli(project, command)
    assert seen[-1] is False and gc.isenabled()

    monkeypatch.setattr(module, name, watched)
    gc.disable()
    try:
        assert run_cli(project, command) == 0
        assert seen[-1] is False and not gc.isenabled()
    finally:
        gc.enable()


# Runs one command as the `sitegen` command does (cli.run), and says whether the cycle
# collector is on when the process is about to end.
ENDING_SCRIPT = textwrap.dedent("""
    import gc, sys
    import sitegen.cli as cli

    real_end = cli.end_process

    def end(code):
        print("collector on" if gc.isenabled() else "collector off", flush=True)
        real_end(code)

    cli.end_process = end
    sys.argv = ["sitegen", "--config", sys.argv[1], sys.argv[2]]
    cli.run()
""")


@pytest.mark.parametrize(
    ("command", "left"),
    [("collect", "collector off"), ("build", "collector off"), ("check", "collector on")],
)
def test_a_command_that_ends_its_process_keeps_the_collector_off_to_the_end(
    project: Path, command: str, left: str
) -> None:
    """Collect and build, run as the `sitegen` command, leave the collector off to the end of
    the process (gc_and_exit.ends_with_command): turned on again, it would look once at all they
    made just before the process ends. Other commands leave it as it was."""
    if command == "build":
        assert run_cli(project, "collect") == 0
    done = subprocess.run(
        [sys.executable, "-c", ENDING_SCRIPT, str(project / "sitegen.yaml"), command],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=project,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == left


# Runs one command as the `sitegen` command does (cli.run) or as a caller in a long-lived
# process does (cli.main), and says whether the state its work read (the build's manifest, or
# collect's record of the last collect) was freed by the time the command returned.
HELD_SCRIPT = textwrap.dedent("""
    import gc, sys, weakref
    import sitegen.cli as cli

    watched = []
    if sys.argv[2] == "build":
        import sitegen.site.build as module

        class Watched(module.Manifest):
            def __init__(self, *args, **kwargs):
                super().__init__(*args, **kwargs)
                watched.append(weakref.ref(self))

        module.Manifest = Watched
    else:
        import sitegen.collect as module

        real_load = module.manifest.load

        def load(*args, **kwargs):
            found = real_load(*args, **kwargs)
            watched.append(weakref.ref(found))
            return found

        module.manifest.load = load

    def said():
        gc.collect()
        return "held" if watched and all(ref() is not None for ref in watched) else "freed"

    real_end = cli.end_process

    def end(code):
        print(said(), flush=True)
        real_end(code)

    cli.end_process = end
    if sys.argv[3] == "run":
        sys.argv = ["sitegen", "--config", sys.argv[1], sys.argv[2]]
        cli.run()
    else:
        code = cli.main(["--config", sys.argv[1], sys.argv[2]])
        print(said() if code == 0 else f"failed {code}", flush=True)
""")


@pytest.mark.parametrize("command", ["collect", "build"])
def test_a_command_that_ends_its_process_leaves_what_it_read_to_the_end(
    project: Path, command: str
) -> None:
    """Run as the `sitegen` command, collect and build leave what their work read to the
    process's end (gc_and_exit.left_to_the_end), which then takes it back at once: freeing it
    one object at a time as the work returned cost a build that adds a run at 20,000 runs
    0.07–0.09 s. Called in a process that goes on (`sitegen serve`, tests), they free it as
    usual: held there, every build would add its state to the process's memory."""
    assert run_cli(project, "collect") == 0
    if command == "build":
        assert run_cli(project, "build") == 0
    results = {}
    for how in ("run", "main"):
        if command == "build":  # (a build that finds nothing changed stops before its work)
            forget_builds(project)
        done = subprocess.run(
            [sys.executable, "-c", HELD_SCRIPT, str(project / "sitegen.yaml"), command, how],
            capture_output=True,
            text=True,
            timeout=300,
            cwd=project,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        results[how] = done.stdout.splitlines()[-1]
    assert results == {"run": "held", "main": "freed"}
