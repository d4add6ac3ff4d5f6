"""The `hybridlab` command: doctor, build, run, clean, release, new-lab, collect, grade,
check-runs, grades, feedback."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .kernels.build import (
    BuildError,
    available_kernels,
    build,
    clean_cache,
    remove_stale_builds,
)
from .machine import reaper


def _doctor(args: argparse.Namespace) -> int:
    from .course.doctor import examine
    from .settings import current

    facts, findings = examine()
    width = max(len(k) for k in facts)
    for key, value in facts.items():
        print(f"{key:<{width}}  {value}")
    print()
    print("settings (README, 'Settings'):")
    for setting, value in current():
        shown = value if value is not None else f"unset ({setting.default})"
        print(f"  {setting.name:<{width}}  {shown}")
    print()
    for f in findings:
        print(f"[{f.level}] {f.text}")
    return 1 if any(f.level == "problem" for f in findings) else 0


def _build(args: argparse.Namespace) -> int:
    names = available_kernels() if args.all else args.names
    if not names:
        print("name kernels to build, or --all", file=sys.stderr)
        return 2
    for name in names:
        try:
            kernel = build(name)
        except (BuildError, FileNotFoundError) as err:
            print(err, file=sys.stderr)
            return 1
        if not args.quiet:
            print(f"{name}: {kernel.library.parent}")
        for warning in kernel.warnings:
            print(f"{name}: {warning}", file=sys.stderr)
    return 0


def _run(args: argparse.Namespace) -> int:
    from .course.notebooks import NotebookError, run_notebook

    out = Path(args.out)
    try:
        executed, figures = run_notebook(
            args.notebook,
            out,
            quick=args.quick,
            timeout=args.timeout,
            allow_errors=args.allow_errors,
        )
    except (NotebookError, FileNotFoundError) as err:
        print(err, file=sys.stderr)
        return 1
    print(f"executed: {executed}")
    print(f"figures:  {len(figures)} in {out / 'figures'}")
    return 0


def _clean(args: argparse.Namespace) -> int:
    killed = reaper.reap_orphans()
    print(f"stopped {killed} process(es) left by notebooks that died")
    removed = reaper.clean_files()
    print(f"removed {len(removed)} unused MPI shared-memory/hydra file(s)")
    if args.cache:
        print(f"removed {clean_cache()} cached kernel build(s)")
    elif args.stale:
        print(f"removed {remove_stale_builds()} cached kernel build(s) today's kit would not use")
    return 0


def _print_paths(produce, word: str) -> int:
    """Print each path `produce()` returns after `word`, or its GradingError."""
    from .grading.course import GradingError

    try:
        paths = produce()
    except GradingError as err:
        print(err, file=sys.stderr)
        return 1
    for path in paths:
        print(f"{word} {path}")
    return 0


def _students(args: argparse.Namespace) -> list[str] | None:
    return [s for s in (args.students or "").split(",") if s] or None


def _release(args: argparse.Namespace) -> int:
    from .grading import exchange
    from .grading.course import release

    if args.exchange:
        if not args.labs:
            print("name the lab(s) to release to the exchange", file=sys.stderr)
            return 2
        return _print_text(lambda: "\n".join(exchange.release(lab) for lab in args.labs))
    if args.after_grading:
        from .grading.rerelease import release_after_grading

        if len(args.labs) != 1:
            print("--after-grading: name the one lab to release again", file=sys.stderr)
            return 2
        return _print_text(lambda: release_after_grading(args.labs[0]))
    return _print_paths(lambda: release(args.labs or None), "released")


def _course_folder(args: argparse.Namespace) -> Path:
    """--course, else HYBRIDLAB_GRADING, else the checkout's grading/."""
    from .paths import grading_dir

    return Path(args.course).expanduser() if args.course else grading_dir(must_exist=False)


def _corpus_tests(course: Path, lab: str) -> str:
    """The command that runs the course's convention and corpus tests of `lab`."""
    from .course.authoring import is_kit_course

    if is_kit_course(course):
        return f"pytest tests/test_lab_lists.py tests/test_notebooks.py tests/test_wrong_answers.py -k {lab}"
    return f"HYBRIDLAB_GRADING={course} pytest tests/test_wrong_answers.py -k {lab} (in the kit)"


def _new_lab(args: argparse.Namespace) -> int:
    from .course.authoring import AuthoringError, corpus_folder, new_lab, scaffolding
    from .grading.course import GradingError, release
    from .paths import labs_dir

    course = _course_folder(args)
    labs = labs_dir(must_exist=False, course=course)
    released: list[Path] = []
    try:
        with scaffolding() as scaffold:  # a release that fails undoes the scaffold too
            written = new_lab(args.lab, course=course, kernel=args.kernel, scaffold=scaffold)
            if not args.no_release:
                scaffold.adopt(course / "release" / args.lab)
                scaffold.adopt(labs / f"{args.lab}.ipynb")
                released = release([args.lab], root=course, labs_dir=labs)
    except (AuthoringError, GradingError) as err:
        print(err, file=sys.stderr)
        print("nothing was changed", file=sys.stderr)
        return 1
    for path in written:
        print(f"wrote {path}")
    for path in released:
        print(f"released {path}")
    print(f"its wrong answers and gaming attempts: {corpus_folder(course)}/wrong_answers, gaming")
    print(f"next: write your lab into these files (book/authoring.md), then `hybridlab release "
          f"{args.lab}` and the tests: {_corpus_tests(course, args.lab)}")
    return 0


def _new_part(args: argparse.Namespace) -> int:
    from .course.authoring import AuthoringError, new_part

    course = _course_folder(args)
    try:
        for path in new_part(args.lab, args.kind, args.part, course=course):
            print(f"changed {path}")
    except AuthoringError as err:
        print(err, file=sys.stderr)
        return 1
    print(f"next: write the part's question, solution and tests (book/authoring.md), then "
          f"`hybridlab release {args.lab}` and: {_corpus_tests(course, args.lab)}")
    return 0


def _slurm(args: argparse.Namespace) -> int:
    from .slurm.local_slurm import run

    return run(args)


def _print_text(produce) -> int:
    """Print what `produce()` returns (nbgrader's log), or its GradingError."""
    from .grading.course import GradingError

    try:
        print(produce())
    except GradingError as err:
        print(err, file=sys.stderr)
        return 1
    return 0


def _grade(args: argparse.Namespace) -> int:
    from .grading.autograde import grade
    from .grading.course import GradingError
    from .grading.sandbox import SandboxError

    try:
        report = grade(
            args.lab,
            students=_students(args),
            jobs=args.jobs,
            quick=args.size,
            unsandboxed=args.unsandboxed,
            wait=args.wait,
        )
    except (GradingError, SandboxError) as err:
        print(err, file=sys.stderr)
        return 1
    print(report)
    return 0


def _check_runs(args: argparse.Namespace) -> int:
    from .runs.course_size import check_runs

    notebook = Path(args.notebook)
    if not notebook.is_file():
        print(f"no notebook at {notebook}", file=sys.stderr)
        return 2
    ok, text = check_runs(notebook, args.size)
    print(text)
    return 0 if ok else 1


def _grades(args: argparse.Namespace) -> int:
    from .grading import gradebook
    from .grading.course import GRADING, GradingError, known_labs, read_lab

    names = args.labs or known_labs()
    if args.assignment and len(names) != 1:
        print("--assignment names one lab's column: name one lab", file=sys.stderr)
        return 2
    try:
        labs = [read_lab(GRADING, name) for name in names]
    except GradingError as err:
        print(err, file=sys.stderr)
        return 1
    for lab in labs:
        print(gradebook.table(lab))
        if args.plot and (picture := gradebook.plot_parts(lab)):
            print(f"plot: {picture}")
        print()
    print(f"csv: {gradebook.write_csv(GRADING, names)}")
    if args.format:
        from .grading.lms_export import grades_csv

        for lab in labs:
            _print_lms(args.format, *grades_csv(lab, args.format, assignment=args.assignment))
            _warn_unmarked(lab)
    return 0


def _warn_unmarked(lab) -> None:
    """On stderr: the written answers not marked yet, which count as 0 in what was written."""
    from .grading.gradebook import unmarked

    warning = unmarked(lab)
    if warning:
        print(warning, file=sys.stderr)


def _print_lms(fmt: str, path: Path, left_out: list[str]) -> None:
    """Where an LMS file was written, and who is not in it (imported without an LMS identity)."""
    print(f"{fmt}: {path}")
    if left_out:
        print(f"  not in it (collected without a {fmt} download): {', '.join(left_out)}")


def _mark(args: argparse.Namespace) -> int:
    from .grading import gradebook
    from .grading.course import GRADING, GradingError, read_lab

    try:
        lab = read_lab(GRADING, args.lab)
        most = gradebook.mark(lab, args.student, args.part, args.score, args.comment)
    except GradingError as err:
        print(err, file=sys.stderr)
        return 1
    print(f"{args.lab} {args.student} {args.part}: {args.score:g} / {most:g} (by hand)")
    print(gradebook.table(lab, [args.student]))
    return 0


def _feedback(args: argparse.Namespace) -> int:
    from .grading import exchange
    from .grading.course import GRADING, GradingError, read_lab
    from .grading.feedback import generate

    if args.exchange:
        return _print_text(lambda: exchange.return_feedback(args.lab, students=_students(args)))
    try:
        lab = read_lab(GRADING, args.lab)
    except GradingError as err:
        print(err, file=sys.stderr)
        return 1
    done = _print_paths(lambda: generate(lab, students=_students(args)), "feedback")
    if done == 0 and args.format:
        from .grading.lms_export import feedback_zip

        _print_lms(args.format, *feedback_zip(lab, args.format))
    if done == 0:
        _warn_unmarked(lab)
    return done


def _collect(args: argparse.Namespace) -> int:
    from .grading import exchange
    from .grading.course import GRADING, GradingError, read_lab
    from .grading.lms import read_ids
    from .grading.submissions import import_submissions

    if args.exchange:
        return _print_text(lambda: exchange.collect(args.lab))
    try:
        if not args.source:
            print("name a folder or zip of submissions, or --exchange", file=sys.stderr)
            return 2
        ids = read_ids(Path(args.ids)) if args.ids else None
        lab = read_lab(GRADING, args.lab)
        report = import_submissions(Path(args.source), lab, replace=args.replace, ids=ids)
    except (GradingError, OSError, ValueError) as err:
        print(err, file=sys.stderr)
        return 1
    print(report.text())
    return 1 if report.unmatched else 0


COURSE_HELP = "the course folder (default: HYBRIDLAB_GRADING, else the checkout's grading/)"


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="hybridlab", description="hybrid MPI + OpenMP course kit")
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("doctor", help="describe the machine and name problems").set_defaults(
        func=_doctor
    )
    b = sub.add_parser("build", help="compile kernels from kernels_c/")
    b.add_argument("names", nargs="*")
    b.add_argument("--all", action="store_true", help="every kernel")
    b.add_argument("--quiet", action="store_true")
    b.set_defaults(func=_build)
    r = sub.add_parser("run", help="execute a notebook headless, keep the copy and figures")
    r.add_argument("notebook")
    r.add_argument("--out", default="out", help="folder for the executed copy (default: out)")
    r.add_argument(
        "--quick",
        action="store_true",
        default=None,
        help="small problem sizes (HYBRIDLAB_QUICK=1; default: as set, else the course's size)",
    )
    r.add_argument("--timeout", type=int, default=900, help="seconds per cell (default 900)")
    r.add_argument("--allow-errors", action="store_true", help="go on after a cell raises")
    r.set_defaults(func=_run)
    c = sub.add_parser("clean", help="remove MPI files a killed run left behind")
    c.add_argument("--cache", action="store_true", help="also remove cached kernel builds")
    c.add_argument(
        "--stale", action="store_true", help="also remove cached builds today's kit would not use"
    )
    c.set_defaults(func=_clean)
    rel = sub.add_parser("release", help="regenerate labs/ from grading/source/ with nbgrader")
    rel.add_argument("labs", nargs="*")
    rel.add_argument(
        "--exchange", action="store_true", help="also into nbgrader's exchange (JupyterHub)"
    )
    rel.add_argument(
        "--after-grading",
        action="store_true",
        help="release a graded lab again: keep its manual grades, regrade, report what is dropped",
    )
    rel.set_defaults(func=_release)
    nl = sub.add_parser("new-lab", help="scaffold a lab that passes the course's conventions")
    nl.add_argument("lab", help="NN_words, e.g. 11_reductions")
    nl.add_argument("--kernel", help="its C kernel's name (default: the words of the lab's name)")
    nl.add_argument("--no-release", action="store_true", help="do not release it to labs/")
    nl.add_argument("--course", help=COURSE_HELP)
    nl.set_defaults(func=_new_lab)
    np_ = sub.add_parser("new-part", help="add a graded part to a lab: its cells, wrong answers, gaming attempts")
    np_.add_argument("lab", help="the lab, e.g. 11_reductions")
    np_.add_argument("kind", choices=("c", "python", "written"),
                     help="c: a whole MPI program in a C cell; python: a function; written: graded by hand")  # fmt: skip
    np_.add_argument("part", help="the part's name, a Python identifier (its cells' ids)")
    np_.add_argument("--course", help=COURSE_HELP)
    np_.set_defaults(func=_new_part)
    from .slurm import local_slurm

    sl = sub.add_parser("slurm", help="a one-node Slurm of your own for lab 10's jobs: start|stop|status",
                        description=local_slurm.DESCRIPTION)  # fmt: skip
    local_slurm.add_arguments(sl)
    sl.set_defaults(func=_slurm)
    g = sub.add_parser("grade", help="autograde grading/submitted/*/LAB in sandboxes, in parallel")
    g.add_argument("lab")
    g.add_argument("--students", help="comma list: (re)grade only these students")
    g.add_argument("--jobs", type=int, help="submissions at once (default: from cores and lab)")
    size = g.add_mutually_exclusive_group()
    size.add_argument(
        "--quick",
        dest="size",
        action="store_const",
        const=True,
        help="quick problem sizes (default: the course's c.GradingPolicy.size, else quick)",
    )
    size.add_argument(
        "--full", dest="size", action="store_const", const=False, help="full problem sizes"
    )
    g.add_argument("--wait", action="store_true", help="queue behind a grader already running")
    g.add_argument("--unsandboxed", action="store_true", help="NO sandbox: only for code you trust")
    g.set_defaults(func=_grade)
    from .grading.similarity import add_command  # `hybridlab similarity LAB` (copies found)

    add_command(sub)
    cr = sub.add_parser(
        "check-runs", help="do a notebook's kept runs match the size the course grades at?"
    )
    cr.add_argument("notebook")
    cr.add_argument(
        "--size",
        choices=("quick", "full"),
        help="the grading size (default: the course's, released beside the notebook, else quick)",
    )
    cr.set_defaults(func=_check_runs)
    gs = sub.add_parser("grades", help="the class table per lab, grades.csv, plots per part")
    gs.add_argument("labs", nargs="*")
    gs.add_argument("--plot", action="store_true", help="score distribution per part (PNG)")
    gs.add_argument("--format", choices=("moodle", "canvas"), help="also the LMS's import CSV")
    gs.add_argument("--assignment", help="Canvas column, e.g. 'Lab 2 (1234)' (default: the lab)")
    gs.set_defaults(func=_grades)
    m = sub.add_parser("mark", help="score a part by hand (a written answer), as the formgrader")
    m.add_argument("lab")
    m.add_argument("student")
    m.add_argument("part", help="grade id, e.g. written_barrier")
    m.add_argument("score", type=float)
    m.add_argument("--comment", help="shown to the student in the feedback")
    m.set_defaults(func=_mark)
    fb = sub.add_parser("feedback", help="HTML feedback per student, without hidden tests")
    fb.add_argument("lab")
    fb.add_argument("--students", help="comma list (default: every graded student)")
    fb.add_argument(
        "--exchange", action="store_true", help="and return it through nbgrader's exchange"
    )
    fb.add_argument("--format", choices=("moodle", "canvas"), help="also the LMS's feedback zip")
    fb.set_defaults(func=_feedback)
    co = sub.add_parser("collect", help="import submissions: LMS folder or zip, or the exchange")
    co.add_argument("lab")
    co.add_argument(
        "source", nargs="?", help="folder or .zip: Moodle, Canvas, <student>_*, <student>/"
    )
    co.add_argument("--ids", help="CSV: LMS id or name,student id (where they differ)")
    co.add_argument("--exchange", action="store_true", help="nbgrader collect (JupyterHub)")
    co.add_argument("--replace", action="store_true", help="overwrite existing submissions")
    co.set_defaults(func=_collect)
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
