"""The upload validator: every bad input is refused with a message naming the file or field; fuzzed, it never crashes."""

from __future__ import annotations

import io
import json
import zipfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from leaderboard import upload
from leaderboard.upload import UploadInvalid, validate_upload
from tests.leaderboard.helpers import KERNEL, make_metadata, make_zip

KNOWN = {"aten::add", "aten::mul", "aten::_index_put_impl_", "cublas::cublasSgemm_v2", "vllm13::rms_norm"}
CHIPS = {"cpu", "h200"}


def validate(archive: bytes, metadata: bytes | None = None):
    return validate_upload(
        archive, metadata if metadata is not None else make_metadata(), known_operators=KNOWN, known_chips=CHIPS
    )


def errors_of(archive: bytes, metadata: bytes | None = None) -> list[str]:
    with pytest.raises(UploadInvalid) as caught:
        validate(archive, metadata)
    assert caught.value.errors, "an invalid upload must say why"
    return [str(e) for e in caught.value.errors]


def test_valid_upload_is_parsed_with_usage_and_samples():
    archive = make_zip(
        {
            "aten__add.py": KERNEL,
            "aten__add.1.py": KERNEL,
            "aten___index_put_impl_.py": KERNEL,
            "cublas__cublasSgemm_v2.py": KERNEL,
        }
    )
    result = validate(archive)
    assert [(f.operator_id, f.sample_index) for f in result.files] == [
        ("aten::_index_put_impl_", 0),
        ("aten::add", 0),
        ("aten::add", 1),
        ("cublas::cublasSgemm_v2", 0),
    ]
    assert result.metadata.usage[("aten::add", 0)].prompt_tokens == 1000
    assert result.metadata.target_chip == "cpu"
    assert all(len(f.sha256) == 64 for f in result.files)


def test_not_a_zip():
    assert errors_of(b"this is not a zip") == ["archive: is not a valid zip file"]


def test_empty_zip():
    assert errors_of(make_zip({})) == ["archive: contains no files"]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("../aten__add.py", "nested directories"),
        ("/etc/aten__add.py", "nested directories"),
        ("sub/aten__add.py", "nested directories"),
        ("..\\aten__add.py", "nested directories"),
        (".hidden.py", "unsafe file name"),
        ("add.py", "file name must be <namespace>__<operator>.py"),
        ("torch__add.py", "file name must be"),
        ("aten__add.txt", "file name must be"),
        ("aten__add.12.py", "sample index must be below"),
    ],
)
def test_bad_member_names_are_refused_by_name(name, expected):
    errors = errors_of(make_zip({name: KERNEL}), make_metadata(operators={}))
    assert any(expected in e and e.startswith(name[:20]) for e in errors), errors


def test_unknown_operator_names_the_file():
    errors = errors_of(make_zip({"aten__add.py": KERNEL, "aten__addd.py": KERNEL}))
    assert errors == ["aten__addd.py: unknown operator 'aten::addd'"]


def test_duplicate_member_is_refused():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive, pytest.warns(UserWarning):
        archive.writestr("aten__add.py", KERNEL)
        archive.writestr("aten__add.py", KERNEL)
    assert any("appears twice" in e for e in errors_of(buffer.getvalue()))


def test_non_utf8_and_binary_sources_are_refused():
    errors = errors_of(
        make_zip({"aten__add.py": b"x = '\xff\xfe'\n", "aten__mul.py": b"\x00\x01binary"}), make_metadata(operators={})
    )
    assert any(e.startswith("aten__add.py: is not UTF-8") for e in errors)
    assert any(e.startswith("aten__mul.py: is binary") for e in errors)


def test_empty_source_is_refused():
    assert errors_of(make_zip({"aten__add.py": "  \n"})) == ["aten__add.py: is empty"]


def test_oversized_file_is_refused():
    big = "x = 1\n" * (upload.MAX_FILE_BYTES // 6 + 10)
    assert any("larger than" in e for e in errors_of(make_zip({"aten__add.py": big}, compression=zipfile.ZIP_STORED)))


def test_zip_bomb_by_compression_ratio():
    bomb = b"#" * (200 * 1024)  # compresses > 500x; also over the per-file size
    errors = errors_of(make_zip({"aten__add.py": bomb}))
    assert any(e.startswith("aten__add.py:") for e in errors)


def test_zip_bomb_with_a_lying_header_is_capped_while_reading(monkeypatch):
    # a member whose header claims a small size but inflates to more than the cap must not be read whole
    archive = make_zip({"aten__add.py": "#" * (upload.MAX_FILE_BYTES + 100)})
    patched = bytearray(archive)
    original_open = zipfile.ZipFile.infolist

    def lying_infolist(self):
        infos = original_open(self)
        for info in infos:
            info.file_size = 100
        return infos

    monkeypatch.setattr(zipfile.ZipFile, "infolist", lying_infolist)
    errors = errors_of(bytes(patched))
    assert any("inflates beyond" in e or "cannot be read" in e for e in errors), errors


def test_total_inflated_size_is_limited(monkeypatch):
    monkeypatch.setattr(upload, "MAX_TOTAL_BYTES", 1000)
    files = {f"aten__add.{i}.py": "x = 1\n" * 50 for i in range(1, 5)} | {"aten__add.py": KERNEL}
    assert any("inflates to" in e for e in errors_of(make_zip(files)))


def test_file_count_is_limited(monkeypatch):
    monkeypatch.setattr(upload, "MAX_FILES", 2)
    errors = errors_of(make_zip({"aten__add.py": KERNEL, "aten__mul.py": KERNEL, "vllm13__rms_norm.py": KERNEL}))
    assert errors == ["archive: has 3 entries (limit 2)"]


def test_whole_archive_size_is_limited(monkeypatch):
    monkeypatch.setattr(upload, "MAX_ARCHIVE_BYTES", 10)
    assert any("archive: is larger than" in e for e in errors_of(make_zip({"aten__add.py": KERNEL})))


def test_encrypted_member_is_refused():
    archive = bytearray(make_zip({"aten__add.py": KERNEL}, compression=zipfile.ZIP_STORED))
    # set the "encrypted" general-purpose flag bit in the local header and the central directory entry
    for signature, offset in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        position = archive.find(signature)
        archive[position + offset] |= 0x1
    assert any("encrypted" in e for e in errors_of(bytes(archive)))


def test_symlink_member_is_refused():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        info = zipfile.ZipInfo("aten__add.py")
        info.external_attr = 0o120777 << 16  # a symbolic link
        archive.writestr(info, "/etc/passwd")
    assert any("links are not allowed" in e for e in errors_of(buffer.getvalue()))


def test_sample_gap_is_refused():
    errors = errors_of(make_zip({"aten__add.py": KERNEL, "aten__add.2.py": KERNEL}))
    assert errors == ["aten__add.2.py: sample 2 given without sample 1"]


@pytest.mark.parametrize(
    ("metadata", "expected"),
    [
        (b"{not json", "metadata: is not valid JSON"),
        (b"\xff\xfe", "metadata: is not UTF-8 text"),
        (b"[1, 2]", "metadata: must be a JSON object"),
        (make_metadata(name=None), "metadata: name: is required"),
        (make_metadata(track="fast"), "metadata: track: must be one of"),
        (make_metadata(target_chip="tpu-v9"), "metadata: target_chip: unknown chip 'tpu-v9'"),
        (make_metadata(model="gpt"), "metadata: model: must be an object"),
        (make_metadata(scaffold={"name": "x", "kind": "wizard"}), "metadata: scaffold.kind: must be one of"),
        (make_metadata(public="yes"), "metadata: public: must be true or false"),
        (make_metadata(schema="kgb-submission/9"), "metadata: schema: must be"),
        (make_metadata(surprise=1), "metadata: unknown fields ['surprise']"),
        (make_metadata(operators={"aten::add": {"prompt_tokens": -5}}), "prompt_tokens must not be negative"),
        (
            make_metadata(operators={"aten::add": {"completion_tokens": 10**12}}),
            "completion_tokens=1000000000000 is absurd",
        ),
        (make_metadata(operators={"aten::add": {"prompt_tokens": "many"}}), "prompt_tokens must be an integer"),
        (make_metadata(operators={"aten::add": {"prompt_tokens": True}}), "prompt_tokens must be an integer"),
        (make_metadata(operators={"aten::add": {"prompt_tokens": 10, "cached_tokens": 20}}), "cannot exceed it"),
        (make_metadata(operators={"aten::add": {"wall_time_s": -1}}), "wall_time_s must be between"),
        # an int beyond float range (found by the fuzz test: math.isfinite raised OverflowError)
        (make_metadata(operators={"aten::add": {"wall_time_s": 10**400}}), "wall_time_s must be between"),
        (make_metadata(operators={"aten::add": {"tokens": 1}}), "unknown fields ['tokens']"),
        (make_metadata(operators={"aten::mul": {"prompt_tokens": 1}}), "has no matching file in the zip"),
        (make_metadata(operators=[1]), "metadata: operators: must be an object"),
    ],
)
def test_malformed_metadata_is_refused_with_the_field_named(metadata, expected):
    errors = errors_of(make_zip({"aten__add.py": KERNEL}), metadata)
    assert any(expected in e for e in errors), errors


def test_every_problem_is_reported_at_once():
    errors = errors_of(make_zip({"aten__nope.py": KERNEL, "sub/x.py": KERNEL}), make_metadata(track="x", operators={}))
    assert len(errors) == 3


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(archive=st.binary(max_size=2048), metadata=st.binary(max_size=512))
def test_fuzz_arbitrary_bytes_never_crash_the_validator(archive, metadata):
    with pytest.raises(UploadInvalid):
        validate(archive, metadata)


member_names = st.one_of(
    st.sampled_from(["aten__add.py", "aten__mul.py", "aten__add.1.py", "../x.py", "a/b.py", "aten__zz.py", "", "."]),
    st.text(min_size=1, max_size=30),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    files=st.dictionaries(member_names, st.binary(max_size=200), max_size=6),
    usage=st.dictionaries(
        st.sampled_from(["aten::add", "aten::mul", "x"]),
        st.one_of(
            st.integers(),
            st.text(max_size=5),
            st.none(),
            st.dictionaries(
                st.sampled_from(["prompt_tokens", "turns", "wall_time_s", "junk"]),
                st.one_of(st.integers(), st.floats(), st.text(max_size=3), st.none()),
            ),
        ),
        max_size=3,
    ),
)
def test_fuzz_structured_zips_either_validate_or_fail_cleanly(files, usage):
    try:
        archive = make_zip(files)
    except (ValueError, UnicodeEncodeError, IndexError):
        return  # zipfile itself refuses some names; nothing to validate
    metadata = make_metadata(operators=usage)
    try:
        result = validate(archive, metadata)
    except UploadInvalid as exc:
        assert all(e.where and e.message for e in exc.errors)
    else:
        assert result.files and all(f.operator_id in KNOWN for f in result.files)
        assert all(json.dumps(f.source) for f in result.files)


# --- issue 15: small bombs, exact member names, names that hide characters -----------------------------------


def test_a_small_member_does_not_skip_the_compression_ratio_check():
    """60 KiB of repeated source deflates ~300x: below the old 64 KiB floor it passed, and 2,500 such
    members stored 64 MiB from a 205 KB zip."""
    small_bomb = "x = 1\n" * 10_000
    archive = make_zip({"aten__add.py": small_bomb})
    assert len(small_bomb) < 64 * 1024
    errors = errors_of(archive)
    assert any(e.startswith("aten__add.py:") and "compression ratio" in e for e in errors), errors


def test_honest_sources_stay_far_below_the_compression_ratio_limit():
    """A false positive is as serious as a missed bomb: the reference solutions all pass."""
    from pathlib import Path

    solutions = sorted(Path("operators/solutions").rglob("*__*.py"))
    assert solutions
    files = {path.name: path.read_text() for path in solutions[:40]}
    known = {name.removesuffix(".py").replace("__", "::", 1) for name in files}
    result = validate_upload(make_zip(files), make_metadata(operators={}), known_operators=known, known_chips=CHIPS)
    assert len(result.files) == len(files)


@pytest.mark.parametrize("name", ["aten__add.py\n", "aten__add.py\r", "aten__add.py\t", "aten__add\u200b.py"])
def test_member_names_must_match_exactly(name):
    errors = errors_of(make_zip({name: KERNEL}), make_metadata(operators={}))
    assert errors and all("aten::add" not in e for e in errors), errors
    assert any("unsafe file name" in e or "file name must be" in e for e in errors), errors


@pytest.mark.parametrize(
    "text",
    [
        "run\u202e3.1",  # right-to-left override
        "my\u200bagent",  # zero-width space
        "my\u200dagent",  # zero-width joiner
        "agent\u2066x\u2069",  # isolates
        "line\nbreak",
        "esc\x1b[31m",
        "bom\ufeff",
        "lone \ud800 surrogate",
    ],
)
@pytest.mark.parametrize(
    "field",
    [
        ("name",),
        ("model", "name"),
        ("model", "provider"),
        ("model", "version"),
        ("scaffold", "name"),
        ("scaffold", "version"),
    ],
)
def test_names_with_control_bidi_or_invisible_characters_are_refused(field, text):
    metadata = json.loads(make_metadata())
    target = metadata
    for key in field[:-1]:
        target = target[key]
    target[field[-1]] = text
    errors = errors_of(make_zip({"aten__add.py": KERNEL}), json.dumps(metadata).encode())
    where = "metadata: " + field[-1]
    assert any(e.startswith(where) and "invisible characters" in e for e in errors), errors


def test_ordinary_unicode_names_are_accepted():
    metadata = make_metadata(
        name="GLM-5.0 运行 3 — café ü",
        model={"provider": "Zhipu AI", "name": "GLM", "version": "5.0"},
        scaffold={"name": "エージェント", "kind": "agent"},
    )
    assert validate(make_zip({"aten__add.py": KERNEL}), metadata).metadata.name == "GLM-5.0 运行 3 — café ü"
