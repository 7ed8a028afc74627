#!/usr/bin/env python3
"""The run-time closure of a set of Debian packages, by shared-library names.

    deb_closure.py fetch DEST APT_OPTION... -- PACKAGE...
    deb_closure.py check DEST

`fetch` downloads PACKAGE... into DEST/debs with `apt-get download` (the apt
options select a private apt state; nothing is installed), then, until nothing
is missing: every ELF file of every fetched package is read with `readelf -d`;
each NEEDED soname that no fetched package provides and that is not in BASE
(the C/C++ runtime every Linux with PyTorch has) is looked for among the direct
Depends of the package that needs it (Debian's shlibs put it there), and the
first dependency that provides it is fetched. So the closure follows what the
programs load, not every Depends (libglx0 needs libGLdispatch and libX11, not
Mesa's drivers and LLVM). Writes DEST/packages.txt.

`check` unpacks DEST/debs/*.deb into a temporary folder and fails (exit 1),
naming each file and soname, when a NEEDED soname is neither provided by the
set nor in BASE: scripts/test.sh runs it on what gpu-fetch.sh fetched.
"""
import os
import re
import subprocess
import sys
import tempfile

# Provided by any Linux that runs PyTorch: glibc, libstdc++, libgcc_s, zlib.
BASE = {
    "libc.so.6", "libm.so.6", "libpthread.so.0", "libdl.so.2", "librt.so.1", "libresolv.so.2", "libutil.so.1",
    "libanl.so.1", "ld-linux-x86-64.so.2", "libstdc++.so.6", "libgcc_s.so.1", "libz.so.1",
}
BASE_PACKAGES = {"libc6", "libgcc-s1", "libstdc++6", "zlib1g", "gcc-12-base"}


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw).stdout


def is_elf(path):
    try:
        with open(path, "rb") as f:
            return f.read(4) == b"\x7fELF"
    except OSError:
        return False


def elf_facts(root):
    """{soname or file name: path} provided, and [(path, needed soname)] under root."""
    provided, needs = {}, []
    for dirpath, _, files in os.walk(root):
        for name in files:
            path = os.path.join(dirpath, name)
            if os.path.islink(path) or not is_elf(path):
                if os.path.islink(path) and ".so" in name:
                    provided[name] = path
                continue
            provided[name] = path
            try:
                dyn = run(["readelf", "-d", path])
            except subprocess.CalledProcessError:
                continue
            for m in re.finditer(r"\((NEEDED|SONAME)\)\s+\S+ \S+: \[([^\]]+)\]", dyn):
                if m.group(1) == "SONAME":
                    provided[m.group(2)] = path
                else:
                    needs.append((path, m.group(2)))
    return provided, needs


def unpack(deb, root):
    os.makedirs(root, exist_ok=True)
    run(["dpkg-deb", "-x", deb, root])


def package_of(deb):
    return os.path.basename(deb).split("_")[0]


def direct_depends(pkg, apt_opts):
    out = run(["apt-cache", *apt_opts, "depends", "--no-recommends", "--no-suggests", "--no-conflicts",
               "--no-breaks", "--no-replaces", "--no-enhances", pkg])
    deps = []
    for line in out.splitlines():
        m = re.match(r"\s*\|?(Pre)?Depends: ([^<\s]+)", line)
        if m:
            deps.append(m.group(2))
    return deps


def download(pkgs, debs, apt_opts):
    run(["apt-get", *apt_opts, "-qq", "download", *pkgs], cwd=debs)


def fetch(dest, apt_opts, roots):
    debs = os.path.join(dest, "debs")
    os.makedirs(debs, exist_ok=True)
    for f in os.listdir(debs):
        os.remove(os.path.join(debs, f))
    download(roots, debs, apt_opts)
    with tempfile.TemporaryDirectory() as tmp:
        roots_of = {}  # fetched package -> its unpacked folder
        probes = {}  # candidate package -> (its .deb, the names it provides), downloaded once
        while True:
            for deb in sorted(os.listdir(debs)):
                pkg = package_of(deb)
                if pkg not in roots_of:
                    roots_of[pkg] = os.path.join(tmp, "set", pkg)
                    unpack(os.path.join(debs, deb), roots_of[pkg])
            provided, owner_needs = {}, []
            for pkg, root in roots_of.items():
                p, n = elf_facts(root)
                provided.update(p)
                owner_needs += [(pkg, so) for _, so in n]
            missing = sorted({(pkg, so) for pkg, so in owner_needs if so not in provided and so not in BASE})
            if not missing:
                break
            progress = False
            for pkg, so in missing:
                if so in provided:
                    continue
                for dep in direct_depends(pkg, apt_opts):
                    if dep in roots_of or dep in BASE_PACKAGES:
                        continue
                    if dep not in probes:
                        probe = os.path.join(tmp, "probe", dep)
                        os.makedirs(probe)
                        download([dep], probe, apt_opts)
                        deb = os.path.join(probe, next(f for f in os.listdir(probe) if f.endswith(".deb")))
                        unpack(deb, os.path.join(probe, "x"))
                        probes[dep] = (deb, set(elf_facts(os.path.join(probe, "x"))[0]))
                    deb, names = probes[dep]
                    if so in names and os.path.exists(deb):
                        os.rename(deb, os.path.join(debs, os.path.basename(deb)))
                        provided.update({n: deb for n in names})
                        progress = True
                        break
            if not progress:
                for pkg, so in missing:
                    if so not in provided:
                        print(f"deb_closure: {so} (needed by {pkg}) is in none of its direct Depends", file=sys.stderr)
                return 1
    names = sorted(package_of(d) for d in os.listdir(debs))
    with open(os.path.join(dest, "packages.txt"), "w") as f:
        f.write("\n".join(names) + "\n")
    added = sorted(set(names) - set(roots))
    print(f"deb_closure: {len(names)} packages ({len(added)} added for their sonames: {' '.join(added)})")
    return 0


def check(dest):
    debs = os.path.join(dest, "debs")
    files = sorted(f for f in os.listdir(debs) if f.endswith(".deb")) if os.path.isdir(debs) else []
    if not files:
        print(f"deb_closure check: no .deb in {debs}: run scripts/gpu-fetch.sh", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        for f in files:
            unpack(os.path.join(debs, f), tmp)
        provided, needs = elf_facts(tmp)
        bad = sorted({(os.path.relpath(p, tmp), so) for p, so in needs if so not in provided and so not in BASE})
    for path, so in bad:
        print(f"deb_closure check: {path} needs {so}, which no fetched package provides", file=sys.stderr)
    if bad:
        print(f"deb_closure check: FAILED: {len(bad)} unresolved sonames in {len(files)} packages", file=sys.stderr)
        return 1
    print(f"deb_closure check: {len(files)} packages, every NEEDED soname resolved within them or the C/C++ runtime")
    return 0


def main(argv):
    if len(argv) >= 3 and argv[1] == "check":
        return check(argv[2])
    if len(argv) >= 4 and argv[1] == "fetch" and "--" in argv:
        sep = argv.index("--")
        return fetch(argv[2], argv[3:sep], argv[sep + 1:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
