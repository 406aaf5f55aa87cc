"""Installers: the shipped metadata and icons (fast, always run), and the frozen app inside the
.deb (marked `packaging`: unpacks a built .deb, runs the app from it).

The .deb is taken from FASTDESK_DEB when set (CI builds it once with packaging/build-linux.sh),
else built here once per session.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import struct
import subprocess
import sys
import tarfile
import tomllib
import xml.etree.ElementTree as ET
from configparser import ConfigParser
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
RESOURCES = ROOT / "resources"
ICONS = RESOURCES / "icons"
PNG_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    return struct.unpack(">II", data[16:24])


# ---- metadata and icons (no build) ------------------------------------------------------------


@pytest.mark.parametrize("size", PNG_SIZES)
def test_png_icon_has_its_size(size: int) -> None:
    assert _png_size((ICONS / f"fastdesk-{size}.png").read_bytes()) == (size, size)


def test_ico_holds_the_windows_sizes_as_png() -> None:
    data = (ICONS / "fastdesk.ico").read_bytes()
    reserved, kind, count = struct.unpack("<HHH", data[:6])
    assert (reserved, kind) == (0, 1)
    sizes = []
    for i in range(count):
        w, h, _, _, _, _, length, offset = struct.unpack(
            "<BBBBHHII", data[6 + 16 * i : 22 + 16 * i]
        )
        png = data[offset : offset + length]
        assert _png_size(png) == (w or 256, h or 256)
        sizes.append(w or 256)
    assert sorted(sizes) == [16, 24, 32, 48, 64, 128, 256]


def test_icns_chunks_are_consistent_pngs() -> None:
    data = (ICONS / "fastdesk.icns").read_bytes()
    assert data[:4] == b"icns"
    assert struct.unpack(">I", data[4:8])[0] == len(data)
    pos, kinds = 8, {}
    while pos < len(data):
        kind, length = data[pos : pos + 4].decode(), struct.unpack(">I", data[pos + 4 : pos + 8])[0]
        kinds[kind] = _png_size(data[pos + 8 : pos + length])[0]
        pos += length
    assert pos == len(data)
    assert kinds["ic07"] == 128 and kinds["ic09"] == 512 and kinds["ic10"] == 1024
    assert kinds["icp4"] == 16 and kinds["ic11"] == 32


def test_desktop_entry_launches_fastdesk_with_its_icon() -> None:
    entry = ConfigParser(interpolation=None)
    entry.optionxform = str  # type: ignore[assignment,method-assign]  # keys are case-sensitive
    entry.read(RESOURCES / "fastdesk.desktop", encoding="utf-8")
    section = entry["Desktop Entry"]
    assert section["Type"] == "Application"
    assert section["Exec"].split()[0] == "fastdesk"
    assert section["Icon"] == "fastdesk"
    assert "text/markdown" in section["MimeType"].split(";")


@pytest.mark.skipif(not shutil.which("desktop-file-validate"), reason="desktop-file-utils absent")
def test_desktop_entry_validates() -> None:
    result = subprocess.run(
        ["desktop-file-validate", str(RESOURCES / "fastdesk.desktop")],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "error" not in result.stdout.lower()


def test_metainfo_names_the_desktop_file_and_the_current_release() -> None:
    root = ET.parse(RESOURCES / "io.github.fastdesk.Fastdesk.metainfo.xml").getroot()
    assert root.findtext("id") == "io.github.fastdesk.Fastdesk"
    assert root.findtext("launchable") == "fastdesk.desktop"
    newest = root.find("releases/release")
    assert newest is not None and newest.get("version") == VERSION, (
        "add a <release> for this version"
    )


@pytest.mark.skipif(not shutil.which("appstreamcli"), reason="appstream absent")
def test_metainfo_validates() -> None:
    result = subprocess.run(
        [
            "appstreamcli",
            "validate",
            "--no-net",
            str(RESOURCES / "io.github.fastdesk.Fastdesk.metainfo.xml"),
        ],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_inno_setup_script_installs_per_user_with_the_given_version() -> None:
    iss = (ROOT / "packaging" / "windows" / "fastdesk.iss").read_text(encoding="utf-8")
    assert re.search(r"^PrivilegesRequired=lowest$", iss, re.M)
    assert re.search(r"^DefaultDirName=\{autopf\}\\", iss, re.M)
    assert "AppVersion={#MyAppVersion}" in iss
    assert "#error" in iss  # refuses to build without /DMyAppVersion=
    assert 'Filename: "{app}\\fastdesk.exe"' in iss


def test_the_app_imports_no_qt_module_the_bundle_excludes() -> None:
    """The spec leaves out Qt modules (and their plugins) the app does not use: importing one
    later would crash the frozen app only. Update EXCLUDES in packaging/fastdesk.spec then."""
    spec = (ROOT / "packaging" / "fastdesk.spec").read_text(encoding="utf-8")
    excluded = set(re.findall(r'"(PySide6\.Qt\w+)"', spec))
    assert "PySide6.QtNetwork" in excluded
    used = set()
    for source in (ROOT / "fastdesk").rglob("*.py"):
        used.update(re.findall(r"\b(PySide6\.Qt\w+)", source.read_text(encoding="utf-8")))
    assert not used & excluded, f"used but excluded from the bundle: {sorted(used & excluded)}"


# ---- the frozen app from the .deb (packaging) -------------------------------------------------


def _smoke() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "fastdesk_smoke", ROOT / "packaging" / "smoke_test.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def deb() -> Path:
    """The .deb under test: FASTDESK_DEB, else built now (one build per session)."""
    given = os.environ.get("FASTDESK_DEB")
    if given:
        path = Path(given)
        assert path.is_file(), f"FASTDESK_DEB={given} does not exist"
        return path
    env = dict(os.environ, PYTHON=sys.executable)
    subprocess.run(
        [str(ROOT / "packaging" / "build-linux.sh")], cwd=ROOT, env=env, check=True, timeout=900
    )
    return ROOT / "dist" / f"fastdesk_{VERSION}_amd64.deb"


@pytest.fixture(scope="session")
def unpacked(deb: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("deb-root")
    subprocess.run(["dpkg-deb", "-x", str(deb), str(root)], check=True)
    return root


@pytest.fixture(scope="session")
def control(deb: Path) -> dict[str, str]:
    text = subprocess.run(
        ["dpkg-deb", "-f", str(deb)], check=True, capture_output=True, text=True
    ).stdout
    return dict(re.findall(r"^([\w-]+): (.*)$", text, re.M))


@pytest.fixture
def app(unpacked: Path) -> Path:
    return unpacked / "opt" / "fastdesk" / "fastdesk"


@pytest.mark.packaging
def test_control_fields(control: dict[str, str]) -> None:
    assert control["Package"] == "fastdesk"
    assert control["Version"] == VERSION
    assert control["Architecture"] == "amd64"
    depends = [d.strip() for d in control["Depends"].split(",")]
    assert re.fullmatch(r"libc6 \(>= 2\.\d+\)", depends[0])
    for package in ("libegl1", "libgl1", "fontconfig-config", "libxcb1"):
        assert package in depends


@pytest.mark.packaging
def test_deb_layout(unpacked: Path) -> None:
    assert os.access(unpacked / "opt/fastdesk/fastdesk", os.X_OK)
    link = unpacked / "usr/bin/fastdesk"
    assert link.is_symlink() and os.readlink(link) == "/opt/fastdesk/fastdesk"
    assert (unpacked / "usr/share/applications/fastdesk.desktop").is_file()
    assert (unpacked / "usr/share/metainfo/io.github.fastdesk.Fastdesk.metainfo.xml").is_file()
    for size in PNG_SIZES:
        icon = unpacked / f"usr/share/icons/hicolor/{size}x{size}/apps/fastdesk.png"
        assert _png_size(icon.read_bytes()) == (size, size)
    assert (unpacked / "usr/share/icons/hicolor/scalable/apps/fastdesk.svg").is_file()
    # fastdesk.config.paths.resource() looks here in the frozen app (importlib.resources)
    bundled = unpacked / "opt/fastdesk/_internal/fastdesk/resources"
    for name in ("pricing.toml", "icons/fastdesk-256.png"):
        assert (bundled / name).is_file(), name
    dangling = [
        p for p in (unpacked / "opt/fastdesk").rglob("*") if p.is_symlink() and not p.exists()
    ]
    assert not dangling, f"links to trimmed files: {dangling[:5]}"


@pytest.mark.packaging
@pytest.mark.skipif(not shutil.which("objdump"), reason="binutils absent")
def test_depends_cover_every_library_the_bundle_does_not_carry(
    unpacked: Path, control: dict[str, str]
) -> None:
    """What the bundle links but does not carry comes from glibc, GL/EGL, xcb, Wayland: Depends
    must name their packages, and ask for a glibc at least as new as any symbol version used."""
    app_dir = unpacked / "opt/fastdesk"
    elves = [p for p in app_dir.rglob("*") if p.is_file() and not p.is_symlink() and _is_elf(p)]
    carried = {p.name for p in app_dir.rglob("*.so*")}
    needed: set[str] = set()
    glibc: set[tuple[int, ...]] = set()
    for elf in elves:
        dump = subprocess.run(
            ["objdump", "-p", "-T", str(elf)], capture_output=True, text=True
        ).stdout
        needed.update(re.findall(r"^\s+NEEDED\s+(\S+)", dump, re.M))
        glibc.update(
            tuple(map(int, v.split("."))) for v in re.findall(r"GLIBC_(\d+(?:\.\d+)+)", dump)
        )
    package_of = {
        "libEGL.so.1": "libegl1",
        "libGL.so.1": "libgl1",
        "libxcb.so.1": "libxcb1",
        "libwayland-client.so.0": "libwayland-client0",
        "libwayland-cursor.so.0": "libwayland-cursor0",
        "libwayland-egl.so.1": "libwayland-egl1",
    }
    libc = {
        "libc.so.6",
        "libm.so.6",
        "libdl.so.2",
        "libpthread.so.0",
        "librt.so.1",
        "ld-linux-x86-64.so.2",
    }
    depends = control["Depends"]
    for lib in sorted(needed - carried - libc):
        assert lib in package_of, f"{lib} comes from the system: map it to a package"
        assert package_of[lib] in depends, f"Depends lacks {package_of[lib]} (for {lib})"
    wanted = re.search(r"libc6 \(>= ([\d.]+)\)", depends)
    assert wanted
    assert tuple(map(int, wanted[1].split("."))) >= max(glibc)


def _is_elf(path: Path) -> bool:
    with path.open("rb") as fh:
        return fh.read(4) == b"\x7fELF"


@pytest.mark.packaging
def test_frozen_version(app: Path, tmp_path: Path) -> None:
    assert _smoke().check_version(app, tmp_path) == f"fastdesk {VERSION}"


@pytest.mark.packaging
def test_frozen_app_runs_through_a_symlink(app: Path, tmp_path: Path) -> None:
    """/usr/bin/fastdesk is a symlink: the bootloader must still find its _internal folder."""
    link = tmp_path / "bin" / "fastdesk"
    link.parent.mkdir()
    link.symlink_to(app)
    assert _smoke().check_version(link, tmp_path) == f"fastdesk {VERSION}"


@pytest.mark.packaging
def test_frozen_translate_against_the_emulator(app: Path, tmp_path: Path) -> None:
    done = _smoke().check_translate(app, tmp_path)
    assert done["report"]["documents"][0]["status"] == "ok"


@pytest.mark.packaging
def test_frozen_window_opens_offscreen_and_quits(app: Path, tmp_path: Path) -> None:
    _smoke().check_window(app, tmp_path, exit_ms=500)


@pytest.mark.packaging
def test_tarball_holds_the_app_and_its_menu_entry(deb: Path) -> None:
    tarball = deb.parent / f"fastdesk-{VERSION}-linux-x86_64.tar.gz"
    if not tarball.is_file():
        pytest.skip(f"{tarball.name} not next to the .deb")
    with tarfile.open(tarball) as tar:
        names = set(tar.getnames())
    top = f"fastdesk-{VERSION}"
    assert f"{top}/fastdesk" in names
    assert f"{top}/share/applications/fastdesk.desktop" in names
    assert f"{top}/_internal/fastdesk/resources/pricing.toml" in names
