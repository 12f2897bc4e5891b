"""Unit tests of the fastwindow Python package: jar location, configure(), error paths, CLI.

Almost everything here runs without a JVM (fake builders and sessions); the few tests that need
one (the CLI's ``config --markdown`` and ``support``, the build backend's scalac runs) start it in
a subprocess.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import fastwindow
from fastwindow import FastWindowError, WindowReport
from fastwindow import _jar, _session, cli

# Another test module may already run a SparkContext in this process; configure() then warns
# that static confs will not apply. That is expected here (no session is started from them).
pytestmark = pytest.mark.filterwarnings(
    r"ignore:fastwindow\.configure\(\). a SparkContext is already running:RuntimeWarning")

REPO = Path(__file__).resolve().parents[1]
BACKEND = REPO / "python" / "_build_backend" / "fastwindow_backend.py"


def _pyspark_version() -> str:
    import pyspark

    return pyspark.__version__


def _minor(version: str) -> str:
    return ".".join(version.split(".")[:2])


class FakeBuilder:
    """Just enough of SparkSession.Builder: ``_options`` and ``config(key, value)``."""

    def __init__(self, **options):
        self._options = dict(options)

    def config(self, key, value):
        self._options[key] = str(value)
        return self


class FakeConf:
    def __init__(self):
        self.values = {}

    def set(self, key, value):
        self.values[key] = value

    def get(self, key, default=None):
        return self.values.get(key, default)


class FakeClassicSession:
    """Looks like a classic session (has _jsparkSession/_jvm) but no JVM is behind it."""

    def __init__(self, version):
        self._jsparkSession = object()
        self._jvm = object()
        self.version = version
        self.conf = FakeConf()


class FakeConnectSession:
    """Like pyspark.sql.connect.session.SparkSession: JVM attributes raise AttributeError."""

    version = "4.3.0"

    def __getattr__(self, name):
        raise AttributeError(f"[JVM_ATTRIBUTE_NOT_SUPPORTED] {name} is not supported in Connect")


# --------------------------------------------------------------------------------------------
# version and jar
# --------------------------------------------------------------------------------------------


def test_version_is_single_sourced():
    text = (REPO / "python" / "fastwindow" / "_version.py").read_text()
    m = re.search(r"""^__version__\s*=\s*["']([^"']+)["']""", text, re.MULTILINE)
    assert m, "the sbt build parses this line"
    assert fastwindow.__version__ == m.group(1)
    assert fastwindow.build_info()["version"] == fastwindow.__version__


def test_jar_path_is_bundled_jar():
    path = fastwindow.jar_path()
    assert os.path.isabs(path) and os.path.isfile(path)
    spark = _pyspark_version()
    assert os.path.basename(path) == (
        f"fastwindow-spark{_minor(spark)}_2.13-{fastwindow.__version__}.jar")
    assert Path(path).parent == Path(fastwindow.__file__).resolve().parent / "jars"
    with zipfile.ZipFile(path) as zf:
        names = set(zf.namelist())
        props = zf.read("fastwindow-build.properties").decode()
    assert "fastwindow/FastWindow.class" in names
    assert "fastwindow/FastWindowExtensions.class" in names
    assert f"version={fastwindow.__version__}" in props.splitlines()
    # Built against this Spark line (the installed release, or that line's Maven release).
    assert f"spark.line={_minor(spark)}" in props.splitlines()
    assert "scala.binary.version=2.13" in props.splitlines()
    assert re.search(r"^source\.hash=[0-9a-f]{64}$", props, re.MULTILINE)
    assert _minor(fastwindow.built_for_spark()) == _minor(spark)


def test_jar_path_missing_says_how_to_build(monkeypatch, tmp_path):
    monkeypatch.setattr(_jar, "JARS_DIR", tmp_path / "jars")
    with pytest.raises(FastWindowError, match=r"pip install \."):
        fastwindow.jar_path()


def test_package_is_typed_and_import_does_not_start_spark():
    assert (Path(fastwindow.__file__).parent / "py.typed").is_file()
    code = "import sys, fastwindow; print('pyspark' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# --------------------------------------------------------------------------------------------
# configure()
# --------------------------------------------------------------------------------------------


def test_configure_adds_jar_and_extension():
    b = FakeBuilder()
    assert fastwindow.configure(b) is b
    assert b._options["spark.jars"] == fastwindow.jar_path()
    assert b._options["spark.sql.extensions"] == "fastwindow.FastWindowExtensions"


def test_configure_keeps_existing_values_without_duplicates():
    jar = fastwindow.jar_path()
    b = FakeBuilder(**{
        "spark.jars": "/opt/libs/a.jar, /opt/libs/b.jar",
        "spark.sql.extensions": "io.delta.sql.DeltaSparkSessionExtension",
        "spark.sql.extendedExplainProviders": "com.example.Explain",
    })
    fastwindow.configure(b)
    fastwindow.configure(b)  # twice: nothing is added again
    assert b._options["spark.jars"] == f"/opt/libs/a.jar,/opt/libs/b.jar,{jar}"
    assert b._options["spark.sql.extensions"] == (
        "io.delta.sql.DeltaSparkSessionExtension,fastwindow.FastWindowExtensions")
    providers = b._options["spark.sql.extendedExplainProviders"].split(",")
    assert providers[0] == "com.example.Explain"
    if _jar.has_class(_session.EXPLAIN_GENERATOR_CLASS):
        assert providers == ["com.example.Explain", _session.EXPLAIN_GENERATOR_CLASS]
    else:  # an unknown provider class would break df.explain(): only added when shipped
        assert providers == ["com.example.Explain"]


def test_configure_recognises_jar_given_as_file_uri():
    jar = fastwindow.jar_path()
    b = FakeBuilder(**{"spark.jars": f"file://{jar}",
                       "spark.sql.extensions": "fastwindow.FastWindowExtensions"})
    fastwindow.configure(b)
    assert b._options["spark.jars"] == f"file://{jar}"
    assert b._options["spark.sql.extensions"] == "fastwindow.FastWindowExtensions"


def test_configure_real_builder_without_starting_spark():
    from pyspark.sql import SparkSession

    b = SparkSession.Builder().config("spark.sql.extensions", "a.B").config("spark.jars", "/x.jar")
    fastwindow.configure(b)
    assert b._options["spark.sql.extensions"] == "a.B,fastwindow.FastWindowExtensions"
    assert b._options["spark.jars"] == "/x.jar," + fastwindow.jar_path()


def test_configure_builder_without_options_attribute():
    class Minimal:
        def __init__(self):
            self.seen = {}

        def config(self, key, value):
            self.seen[key] = value
            return self

    b = Minimal()
    fastwindow.configure(b)
    assert b.seen["spark.jars"] == fastwindow.jar_path()
    assert b.seen["spark.sql.extensions"] == "fastwindow.FastWindowExtensions"


def test_configure_warns_when_a_spark_context_already_runs(monkeypatch):
    import pyspark

    monkeypatch.setattr(pyspark.SparkContext, "_active_spark_context", object())
    with pytest.warns(RuntimeWarning, match=r"already running.*Call fastwindow\.enable\(spark\)"):
        fastwindow.configure(FakeBuilder())


# --------------------------------------------------------------------------------------------
# Spark version mismatch
# --------------------------------------------------------------------------------------------


def test_configure_rejects_a_spark_line_without_a_jar(monkeypatch):
    monkeypatch.setattr(_session, "_pyspark_version", lambda: "3.4.1")
    with pytest.raises(FastWindowError) as err:
        fastwindow.configure(FakeBuilder())
    msg = str(err.value)
    assert "fastwindow.configure(): " in msg and "no jar for Spark 3.4.1" in msg
    # It names the lines it has, so the user knows what to run instead.
    for line, scala in fastwindow.bundled_jars():
        assert line in msg and f"Scala {scala}" in msg


def test_configure_picks_the_jar_of_the_pyspark_line(monkeypatch, tmp_path):
    jars = _fake_jars(monkeypatch, tmp_path, ["4.2", "4.3"])
    monkeypatch.setattr(_session, "_pyspark_version", lambda: "4.2.1")
    b = fastwindow.configure(FakeBuilder())
    assert b._options["spark.jars"] == str(jars["4.2"])


def test_configure_accepts_other_patch_release(monkeypatch):
    major, minor = fastwindow.built_for_spark().split(".")[:2]
    monkeypatch.setattr(_session, "_pyspark_version", lambda: f"{major}.{minor}.99")
    b = fastwindow.configure(FakeBuilder())
    assert "fastwindow.FastWindowExtensions" in b._options["spark.sql.extensions"]


def test_enable_rejects_other_spark_minor_before_touching_the_jvm():
    session = FakeClassicSession("3.4.4")
    with pytest.raises(FastWindowError, match=r"fastwindow\.enable\(\): .*no jar for Spark 3\.4\.4"):
        fastwindow.enable(session)
    assert session.conf.values == {}


# --------------------------------------------------------------------------------------------
# Spark Connect
# --------------------------------------------------------------------------------------------


def _assert_connect_message(msg: str) -> None:
    assert "Spark Connect" in msg
    assert "local JVM" in msg
    assert f"--jars {fastwindow.jar_path()}" in msg
    assert "--conf spark.sql.extensions=fastwindow.FastWindowExtensions" in msg


@pytest.mark.parametrize("fn", [fastwindow.enable, fastwindow.disable, fastwindow.is_enabled])
@pytest.mark.parametrize("session", [object(), FakeConnectSession()],
                         ids=["plain-object", "connect-like"])
def test_connect_session_is_refused_with_server_side_config(fn, session):
    with pytest.raises(FastWindowError) as err:
        fn(session)
    _assert_connect_message(str(err.value))
    assert f"fastwindow.{fn.__name__}()" in str(err.value)


@pytest.mark.parametrize("fn", [fastwindow.explain, fastwindow.explain_string])
def test_connect_dataframe_is_refused(fn):
    class ConnectDataFrame:
        sparkSession = FakeConnectSession()

    with pytest.raises(FastWindowError) as err:
        fn(ConnectDataFrame())
    _assert_connect_message(str(err.value))


def test_configure_refuses_remote_builder():
    with pytest.raises(FastWindowError) as err:
        fastwindow.configure(FakeBuilder(**{"spark.remote": "sc://spark-server:15002"}))
    _assert_connect_message(str(err.value))
    assert "spark.remote=sc://spark-server:15002" in str(err.value)


def test_real_connect_session_class_is_refused():
    try:
        from pyspark.sql.connect.session import SparkSession as ConnectSession
    except Exception as exc:  # grpc & co. are optional
        pytest.skip(f"Spark Connect client not importable: {exc}")
    session = ConnectSession.__new__(ConnectSession)  # no server needed
    with pytest.raises(FastWindowError) as err:
        fastwindow.enable(session)
    _assert_connect_message(str(err.value))


# --------------------------------------------------------------------------------------------
# explain() parsing (the JVM side is faked)
# --------------------------------------------------------------------------------------------

EXPLAIN_JSON = json.dumps([
    {"operator": "FastWindow", "fastwindow": True,
     "windowExpressions": ["row_number() OVER (...) AS rn", "sum(v) OVER (...) AS s"],
     "partitionSpec": ["k"], "orderSpec": ["v ASC NULLS FIRST"], "reason": None},
    {"operator": "Window", "fastwindow": False,
     "windowExpressions": ["percentile(v, 0.5) OVER (...) AS p"],
     "partitionSpec": [], "orderSpec": [],
     "reason": "percentile over a moving RANGE frame is not supported yet"},
])


def test_explain_parses_reports(monkeypatch):
    class FakeApi:
        def explainJson(self, jdf):
            assert jdf == "jdf"
            return EXPLAIN_JSON

        def explainString(self, jdf):
            return "FastWindow ...\nWindow ..."

    class FakeDataFrame:
        _jdf = "jdf"
        sparkSession = FakeClassicSession(fastwindow.built_for_spark())

    monkeypatch.setattr(_session, "_api", lambda spark, add_jar: FakeApi())
    reports = fastwindow.explain(FakeDataFrame())
    assert [r.operator for r in reports] == ["FastWindow", "Window"]
    fast, spark = reports
    assert fast == WindowReport("FastWindow", True,
                                ("row_number() OVER (...) AS rn", "sum(v) OVER (...) AS s"),
                                ("k",), ("v ASC NULLS FIRST",), None)
    assert spark.fastwindow is False and spark.partition_spec == ()
    assert "not supported yet" in spark.reason
    text = str(fast)
    assert text.startswith("FastWindow (fastwindow): PARTITION BY k ORDER BY v ASC NULLS FIRST")
    assert "sum(v) OVER (...) AS s" in text
    assert "not accelerated: percentile over a moving RANGE frame" in str(spark)
    with pytest.raises(Exception):
        fast.operator = "x"  # frozen
    assert fastwindow.explain_string(FakeDataFrame()).startswith("FastWindow")


# --------------------------------------------------------------------------------------------
# CLI
# --------------------------------------------------------------------------------------------


def test_cli_jar(capsys):
    assert cli.main(["jar"]) == 0
    assert capsys.readouterr().out.strip() == fastwindow.jar_path()


def test_cli_version(capsys):
    assert cli.main(["--version"]) == 0
    out = capsys.readouterr().out
    assert f"fastwindow {fastwindow.__version__}" in out
    assert f"Spark {_minor(fastwindow.built_for_spark())} (Scala 2.13, built against " \
        f"{fastwindow.built_for_spark()})" in out


def test_cli_config(capsys):
    assert cli.main(["config"]) == 0
    out = capsys.readouterr().out
    jar = fastwindow.jar_path()
    assert re.search(r"^spark\.jars\s+" + re.escape(jar) + "$", out, re.MULTILINE)
    assert re.search(r"^spark\.sql\.extensions\s+fastwindow\.FastWindowExtensions$", out,
                     re.MULTILINE)
    assert f"--jars {jar}" in out
    assert "--conf spark.sql.extensions=fastwindow.FastWindowExtensions" in out
    assert "fastwindow.configure(SparkSession.builder)" in out


def test_cli_without_command_prints_help(capsys):
    assert cli.main([]) == 2
    out = capsys.readouterr().out
    for command in ("jar", "config", "support", "demo", "bench"):
        assert command in out


def test_cli_bench_lists_workloads(capsys):
    # The suite itself runs in tests/test_bench_smoke.py; this checks the CLI dispatch only.
    assert cli.main(["bench", "--list"]) == 0
    out = capsys.readouterr().out
    assert "moving_sum_w1000" in out and "shape small" in out


def test_cli_reports_missing_jar(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(_jar, "JARS_DIR", tmp_path)
    assert cli.main(["jar"]) == 1
    assert "pip install" in capsys.readouterr().err


def test_python_dash_m_fastwindow():
    run = lambda *a: subprocess.run([sys.executable, "-m", "fastwindow", *a],  # noqa: E731
                                    capture_output=True, text=True, timeout=120)
    out = run("jar")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == fastwindow.jar_path()
    out = run("--version")
    assert out.returncode == 0 and fastwindow.__version__ in out.stdout


def test_cli_config_markdown_and_support_from_the_jvm():
    code = (
        "import contextlib, io, json, fastwindow.cli as c\n"
        "res = {}\n"
        "for name, argv in (('md', ['config', '--markdown']), ('support', ['support', '--json'])):\n"
        "    buf = io.StringIO()\n"
        "    with contextlib.redirect_stdout(buf):\n"
        "        rc = c.main(argv)\n"
        "    res[name] = [rc, buf.getvalue()]\n"
        "print('FWRESULT ' + json.dumps(res))\n"
    )
    # One subprocess (one JVM); each command starts and stops its own local session.
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=600)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("FWRESULT ")]
    assert proc.returncode == 0 and lines, proc.stdout[-3000:] + proc.stderr[-5000:]
    res = json.loads(lines[-1][len("FWRESULT "):])
    rc, md = res["md"]
    assert rc == 0
    assert "| `spark.fastwindow.enabled` |" in md
    rc, support = res["support"]
    assert rc == 0
    data = json.loads(support)
    assert isinstance(data, (list, dict)) and data


def test_cli_demo_small_run():
    proc = subprocess.run(
        [sys.executable, "-m", "fastwindow", "demo", "--rows", "20000", "--repeat", "1",
         "--warmup", "0", "--master", "local[1]", "--driver-memory", "1g"],
        capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    out = proc.stdout
    assert "physical plan with fastwindow on:" in out
    assert "window operators (fastwindow.explain):" in out
    assert re.search(r"fastwindow on : \d+\.\d+ s", out)
    assert re.search(r"speedup\s+: \d+\.\d+x", out)
    assert "results: identical (checksum of all 20,000 rows x every column and sorted rows)" in out


def test_format_table_renders_lists_of_objects():
    text = cli.format_table([
        {"function": "sum", "frames": ["ROWS", "RANGE"], "codegen": True},
        {"function": "row_number", "frames": ["ROWS"]},
    ])
    lines = text.splitlines()
    assert lines[0].split() == ["function", "frames", "codegen"]
    assert lines[2].split() == ["sum", "ROWS", "yes"]  # one list element per line
    assert lines[3].split() == ["RANGE"]
    assert lines[4].split() == ["row_number", "ROWS"]


# --------------------------------------------------------------------------------------------
# build backend (compiles a scratch tree, not the project's sources)
# --------------------------------------------------------------------------------------------


def _scratch_tree(tmp_path: Path, scala: str, maven_lines=()) -> Path:
    root = tmp_path / "checkout"
    (root / "python" / "_build_backend").mkdir(parents=True)
    (root / "python" / "fastwindow").mkdir(parents=True)
    for module in ("fastwindow_backend.py", "backend_common.py", "installed_spark.py",
                   "jar_sources.py", "jar_compile.py", "spark_lines.py"):
        (root / "python" / "_build_backend" / module).write_bytes(
            (BACKEND.parent / module).read_bytes())
    (root / "python" / "fastwindow" / "_version.py").write_text('__version__ = "9.8.7"\n')
    src = root / "scala-src" / "main" / "scala" / "demo"
    src.mkdir(parents=True)
    (src / "Hello.scala").write_text(scala)
    # One shim folder per line, each defining the same object differently.
    lines = [f"{_minor(_pyspark_version())}\t2.13\tinstalled-shim\t-"] + [
        f"{line}\t2.13\t{line}-shim\t{maven}" for line, maven in maven_lines]
    (root / "scala-src" / "shims").mkdir(parents=True)
    (root / "scala-src" / "shims" / "spark-lines.tsv").write_text(
        "# line scala shims maven\n" + "\n".join(lines) + "\n")
    for line in ["installed"] + [line for line, _ in maven_lines]:
        shim = root / "scala-src" / "shims" / f"{line}-shim" / "scala" / "demo"
        shim.mkdir(parents=True)
        (shim / "Line.scala").write_text(f'package demo\nobject Line {{ def name = "{line}" }}\n')
    res = root / "scala-src" / "main" / "resources" / "META-INF"
    res.mkdir(parents=True)
    (res / "note.txt").write_text("resource\n")
    return root


def _run_backend(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(root / "python" / "_build_backend" / "fastwindow_backend.py"), *args],
        capture_output=True, text=True, timeout=600, cwd=root)


@pytest.mark.skipif(not BACKEND.is_file(), reason="needs a source checkout")
def test_backend_compiles_packages_and_caches(tmp_path):
    root = _scratch_tree(tmp_path, "package demo\nobject Hello { def hi: String = \"hi\" }\n")
    first = _run_backend(root)
    assert first.returncode == 0, first.stderr
    assert "compiling 2 Scala file(s) with Spark" in first.stderr
    spark = _pyspark_version()
    jar = root / "python" / "fastwindow" / "jars" / f"fastwindow-spark{_minor(spark)}_2.13-9.8.7.jar"
    assert jar.is_file()
    with zipfile.ZipFile(jar) as zf:
        names = set(zf.namelist())
        props = zf.read("fastwindow-build.properties").decode().splitlines()
    assert {"demo/Hello.class", "demo/Hello$.class", "demo/Line$.class", "META-INF/note.txt",
            "META-INF/MANIFEST.MF"} <= names
    assert "version=9.8.7" in props and f"spark.version={spark}" in props
    assert "scala.binary.version=2.13" in props
    second = _run_backend(root)
    assert second.returncode == 0 and "up to date" in second.stderr


@pytest.mark.skipif(not BACKEND.is_file(), reason="needs a source checkout")
def test_backend_surfaces_scalac_errors(tmp_path):
    root = _scratch_tree(tmp_path, "package demo\nobject Hello { def hi: Int = \"not an int\" }\n")
    proc = _run_backend(root)
    assert proc.returncode != 0
    assert "Hello.scala:2: error: type mismatch" in proc.stderr
    assert re.search(r"scalac \(Spark [\d.]+\) failed", proc.stderr)
    assert not list((root / "python" / "fastwindow").glob("jars/*.jar"))


@pytest.mark.skipif(not BACKEND.is_file(), reason="needs a source checkout")
def test_backend_builds_other_lines_against_maven_central(tmp_path):
    # A line other than the installed one is compiled against its Spark's API jars from Maven
    # Central (cached in ~/.cache/fastwindow), with its own shim folder.
    line, maven = ("4.2", "4.2.0/2.13.18") if _minor(_pyspark_version()) == "4.0" else \
        ("4.0", "4.0.4/2.13.16")
    root = _scratch_tree(tmp_path, "package demo\nobject Hello { def hi = Line.name }\n",
                         maven_lines=[(line, maven)])
    proc = _run_backend(root, "--spark-lines", "all")
    assert proc.returncode == 0, proc.stderr
    jars = root / "python" / "fastwindow" / "jars"
    other = jars / f"fastwindow-spark{line}_2.13-9.8.7.jar"
    props = _jar.build_info(str(other))
    assert (props["spark.version"], props["scala.version"]) == tuple(maven.split("/"))
    assert props["spark.line"] == line
    installed = jars / f"fastwindow-spark{_minor(_pyspark_version())}_2.13-9.8.7.jar"
    assert installed.is_file()
    # Editable installs build only the installed line, and keep other lines' jars only while
    # they match the sources.
    (root / "scala-src" / "main" / "scala" / "demo" / "Hello.scala").write_text(
        "package demo\nobject Hello { def hi = Line.name + \"!\" }\n")
    proc = _run_backend(root)
    assert proc.returncode == 0, proc.stderr
    assert f"removing stale fastwindow-spark{line}_2.13-9.8.7.jar" in proc.stderr
    assert installed.is_file() and not other.exists()


def test_backend_rejects_unknown_spark_lines(tmp_path):
    root = _scratch_tree(tmp_path, "package demo\nobject Hello\n")
    proc = _run_backend(root, "--spark-lines", "3.4")
    assert proc.returncode == 1
    assert "no Spark line ['3.4']" in proc.stderr


# --------------------------------------------------------------------------------------------
# one jar per Spark line: which one is picked
# --------------------------------------------------------------------------------------------


def _fake_jars(monkeypatch, tmp_path, lines, scala="2.13"):
    jars = {}
    for line in lines:
        jar = tmp_path / f"fastwindow-spark{line}_{scala}-{fastwindow.__version__}.jar"
        with zipfile.ZipFile(jar, "w") as zf:
            zf.writestr("fastwindow-build.properties", f"spark.version={line}.0\n")
        jars[line] = jar
    monkeypatch.setattr(_jar, "JARS_DIR", tmp_path)
    return jars


def test_jar_path_picks_the_installed_pyspark_line(monkeypatch, tmp_path):
    jars = _fake_jars(monkeypatch, tmp_path, ["4.0", "4.2", "4.3"])
    monkeypatch.setattr(_jar, "_installed_pyspark", lambda: ("4.2.1", "2.13"))
    assert fastwindow.jar_path() == str(jars["4.2"])
    assert fastwindow.jar_path(spark="4.0.4") == str(jars["4.0"])
    assert fastwindow.jar_path(spark="4.3") == str(jars["4.3"])


def test_jar_path_without_pyspark_needs_the_line(monkeypatch, tmp_path, capsys):
    jars = _fake_jars(monkeypatch, tmp_path, ["4.0", "4.3"])
    monkeypatch.setattr(_jar, "_installed_pyspark", lambda: None)
    with pytest.raises(FastWindowError, match=r"--spark 4\.2"):
        fastwindow.jar_path()
    assert cli.main(["jar", "--spark", "4.0"]) == 0
    assert capsys.readouterr().out.strip() == str(jars["4.0"])


def test_jar_path_names_the_supported_lines(monkeypatch, tmp_path, capsys):
    _fake_jars(monkeypatch, tmp_path, ["4.0", "4.1"])
    monkeypatch.setattr(_jar, "_installed_pyspark", lambda: ("4.1.0", "2.13"))
    for args, wanted in ((["--spark", "3.4"], "Spark 3.4"), (["--spark", "5.0.0"], "Spark 5.0.0"),
                         (["--spark", "4.1", "--scala", "2.12"], "Spark 4.1 (Scala 2.12)")):
        assert cli.main(["jar", *args]) == 1
        err = capsys.readouterr().err
        assert f"has no jar for {wanted}" in err
        assert "carries jars for Spark 4.0, 4.1 (Scala 2.13)" in err


def test_jar_path_picks_the_scala_of_the_local_pyspark(monkeypatch, tmp_path):
    jars = {scala: _fake_jars(monkeypatch, tmp_path, ["3.5"], scala=scala)["3.5"]
            for scala in ("2.12", "2.13")}
    monkeypatch.setattr(_jar, "_installed_pyspark", lambda: None)
    monkeypatch.setattr(_jar, "_pyspark_scala", lambda: "2.13")
    assert fastwindow.jar_path(spark="3.5.1") == str(jars["2.13"])
    assert fastwindow.jar_path(spark="3.5", scala="2.12") == str(jars["2.12"])
    monkeypatch.setattr(_jar, "_pyspark_scala", lambda: None)
    with pytest.raises(FastWindowError, match=r"Scala 2\.12 and 2\.13: say which"):
        fastwindow.jar_path(spark="3.5")


def test_the_scala_of_spark_home_wins_over_pysparks_own_jars(monkeypatch, tmp_path):
    # pyspark launches $SPARK_HOME's Spark when it is set: e.g. PyPI's pyspark 3.5 (Scala 2.12
    # jars) driving a Spark 3.5 built for Scala 2.13 needs the 2.13 jar.
    (tmp_path / "jars").mkdir()
    (tmp_path / "jars" / "spark-core_2.13-3.5.9.jar").write_bytes(b"")
    monkeypatch.setenv("SPARK_HOME", str(tmp_path))
    _jar._pyspark_scala.cache_clear()
    try:
        assert _jar._pyspark_scala() == "2.13"
    finally:
        _jar._pyspark_scala.cache_clear()
