"""The README's Python example runs as printed, beside a filter trained on the corpus
shipped in corpora/."""

import contextlib
import io
import os

from conftest import ROOT


def test_readme_example_runs(cli, tmp_path):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme[readme.index("## From Python"):].split("```python\n", 1)[1].split("```", 1)[0]
    shipped = ROOT / "corpora" / "spamassassin"
    cli("train", "--spam", shipped / "spam", "--ham", shipped / "ham", "-o", tmp_path / "spam.model")
    offer = tmp_path / "tests" / "data" / "mail" / "offer.eml"
    offer.parent.mkdir(parents=True)
    offer.write_bytes((ROOT / "tests" / "data" / "mail" / "offer.eml").read_bytes())
    out = io.StringIO()
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(block, "README.md", "exec"), {})
    finally:
        os.chdir(cwd)
    lines = out.getvalue().splitlines()
    assert lines[0] == "['spam' 'ham']"
    assert lines[1].startswith("Decision(label='spam'")
    assert 0.9 < float(lines[2]) <= 1.0
