//! Nothing lost: every file the CLI writes (`pack`, `unpack`, `argmax`, `render -o`) is
//! replaced all or nothing. After a write failure, a full disk or `kill -9` at any moment,
//! the target holds its old contents or the complete new ones, and no temporary file is
//! left behind by a failure the tool saw. Large tensors are memory-mapped, never copied
//! into the heap.

use std::fs;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_strideweave"))
}

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// Runs the CLI with the file-size limit `limit` (RLIMIT_FSIZE) and SIGXFSZ ignored, so
/// that any write past `limit` bytes of a file fails with EFBIG: an injected write failure
/// in the middle of the output.
fn run_with_file_limit(args: &[&str], limit: u64) -> Output {
    let mut cmd = bin();
    cmd.args(args);
    // SAFETY: only async-signal-safe calls (setrlimit, signal) between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            let lim = libc::rlimit {
                rlim_cur: limit as libc::rlim_t,
                rlim_max: limit as libc::rlim_t,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            Ok(())
        });
    }
    cmd.output().unwrap()
}

fn one_error_line(o: &Output) -> String {
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(1), "stderr: {err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("error: "), "{err}");
    err
}

/// f32 values `0, 1, 2, ...` as little-endian bytes.
fn f32_ramp(n: usize) -> Vec<u8> {
    (0..n).flat_map(|i| (i as f32).to_le_bytes()).collect()
}

#[test]
fn a_write_failure_in_the_middle_keeps_the_old_output_and_leaves_no_temporary() {
    let dir = tempfile::tempdir().unwrap();
    let (input, out) = (dir.path().join("in.bin"), dir.path().join("out.bin"));
    fs::write(&input, f32_ramp(65536)).unwrap();
    // an existing output large enough to be updated in place: its copy fails past 64 KiB
    let old = vec![0xab; 256 * 1024];
    fs::write(&out, &old).unwrap();
    let args = [
        "pack",
        "--from",
        "f32[65536]",
        "--to",
        "f32[65536]",
        p(&input),
        p(&out),
    ];
    let o = run_with_file_limit(&args, 64 * 1024);
    let err = one_error_line(&o);
    assert!(err.starts_with("error: io: "), "{err}");
    assert_eq!(fs::read(&out).unwrap(), old, "the old contents survive");
    assert_eq!(names(dir.path()), ["in.bin", "out.bin"]);

    // a new output: nothing is created
    fs::remove_file(&out).unwrap();
    let o = run_with_file_limit(&args, 64 * 1024);
    one_error_line(&o);
    assert!(!out.exists());
    assert_eq!(names(dir.path()), ["in.bin"]);

    // without the limit the same command succeeds and writes the whole output
    let o = bin().args(args).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(fs::read(&out).unwrap(), f32_ramp(65536));
    assert_eq!(names(dir.path()), ["in.bin", "out.bin"]);
}

#[test]
fn render_onto_an_existing_file_keeps_it_when_the_write_fails() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("pic.svg");
    fs::write(&out, "old picture").unwrap();
    let o = run_with_file_limit(&["render", "(16,16):(16,1)", "-o", p(&out)], 1024);
    one_error_line(&o);
    assert_eq!(fs::read_to_string(&out).unwrap(), "old picture");
    assert_eq!(names(dir.path()), ["pic.svg"]);
}

#[test]
fn an_in_place_update_keeps_the_gap_bytes_and_the_file_mode() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let (input, out) = (dir.path().join("in.bin"), dir.path().join("out.bin"));
    fs::write(&input, f32_ramp(2)).unwrap();
    // f32[2] strided(8): bytes 0..4 and 8..12 are written, 4..8 and 12.. are gaps
    fs::write(&out, [0x55u8; 16]).unwrap();
    fs::set_permissions(&out, fs::Permissions::from_mode(0o640)).unwrap();
    let o = bin()
        .args(["pack", "--from", "f32[2]", "--to", "f32[2] strided(8)"])
        .args([p(&input), p(&out)])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let got = fs::read(&out).unwrap();
    let mut want = vec![0x55u8; 16];
    want[0..4].copy_from_slice(&0f32.to_le_bytes());
    want[8..12].copy_from_slice(&1f32.to_le_bytes());
    assert_eq!(got, want);
    let mode = fs::metadata(&out).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o640);
}

#[test]
fn writing_through_a_symlink_replaces_the_file_it_points_to() {
    let dir = tempfile::tempdir().unwrap();
    let (real, link) = (dir.path().join("real.svg"), dir.path().join("link.svg"));
    fs::write(&real, "old").unwrap();
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let o = bin()
        .args(["render", "2:1", "-o", p(&link)])
        .output()
        .unwrap();
    assert!(o.status.success());
    assert!(fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(fs::read_to_string(&real).unwrap().contains("<svg"));
}

#[test]
fn an_output_that_is_a_device_is_written_not_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.bin");
    fs::write(&input, f32_ramp(4)).unwrap();
    let o = bin()
        .args([
            "pack",
            "--from",
            "f32[4]",
            "--to",
            "bf16[4]",
            p(&input),
            "/dev/null",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let meta = fs::metadata("/dev/null").unwrap();
    assert!(!meta.is_file(), "/dev/null is still a device");
}

/// A tmpfs of `kib` KiB mounted at a new directory (root only); `None` where mounting is
/// not allowed.
struct SmallFs(PathBuf);

impl SmallFs {
    fn mount(kib: u64) -> Option<SmallFs> {
        let dir = tempfile::tempdir().unwrap().keep();
        let ok = Command::new("mount")
            .args([
                "-t",
                "tmpfs",
                "-o",
                &format!("size={kib}k"),
                "tmpfs",
                p(&dir),
            ])
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if ok {
            Some(SmallFs(dir))
        } else {
            let _ = fs::remove_dir(&dir);
            None
        }
    }
}

impl Drop for SmallFs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
        let _ = fs::remove_dir(&self.0);
    }
}

#[test]
fn a_full_disk_is_an_error_and_the_old_output_survives() {
    let Some(fs_small) = SmallFs::mount(512) else {
        eprintln!("skipped: cannot mount a tmpfs here (needs root); the RLIMIT_FSIZE test covers write failures");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.bin");
    fs::write(&input, f32_ramp(256 * 1024)).unwrap(); // 1 MiB
    let out = fs_small.0.join("out.bin");
    fs::write(&out, vec![0x11u8; 300 * 1024]).unwrap();
    // 512 KiB of bf16 needs more than the ~212 KiB left: refused before anything is written
    let o = bin()
        .args(["pack", "--from", "f32[262144]", "--to", "bf16[262144]"])
        .args([p(&input), p(&out)])
        .output()
        .unwrap();
    let err = one_error_line(&o);
    assert!(
        err.contains("no-space") || err.contains("No space"),
        "{err}"
    );
    assert_eq!(fs::read(&out).unwrap(), vec![0x11u8; 300 * 1024]);
    assert_eq!(names(&fs_small.0), ["out.bin"]);
    // render onto the full file system: the same
    fs::write(fs_small.0.join("fill"), vec![0u8; 200 * 1024]).unwrap();
    let pic = fs_small.0.join("pic.svg");
    fs::write(&pic, "old").unwrap();
    let o = bin()
        .args(["render", "(64,64):(64,1)", "-o", p(&pic)])
        .output()
        .unwrap();
    one_error_line(&o);
    assert_eq!(fs::read_to_string(&pic).unwrap(), "old");
    assert_eq!(names(&fs_small.0), ["fill", "out.bin", "pic.svg"]);
}

#[test]
fn kill_9_at_any_moment_leaves_the_old_or_the_complete_new_output() {
    let dir = tempfile::tempdir().unwrap();
    let (input, out, reference) = (
        dir.path().join("in.bin"),
        dir.path().join("out.bin"),
        dir.path().join("ref.bin"),
    );
    let n = 8 * 1024 * 1024; // 32 MiB of f32 in, 16 MiB of bf16 out
    fs::write(&input, f32_ramp(n)).unwrap();
    let spec_from = format!("f32[{n}]");
    let spec_to = format!("bf16[{n}]");
    let pack = |target: &Path| {
        let mut c = bin();
        c.args(["pack", "--from", &spec_from, "--to", &spec_to])
            .args([p(&input), p(target)])
            .stderr(Stdio::null());
        c
    };
    assert!(pack(&reference).status().unwrap().success());
    let new = fs::read(&reference).unwrap();
    let old = vec![0x11u8; new.len()];
    let (mut saw_old, mut saw_new) = (false, false);
    for delay_ms in [0u64, 1, 3, 10, 30, 60, 100, 200, 400, 800, 1600] {
        fs::write(&out, &old).unwrap();
        let mut child = pack(&out).spawn().unwrap();
        std::thread::sleep(Duration::from_millis(delay_ms));
        let _ = child.kill(); // SIGKILL
        let _ = child.wait();
        let got = fs::read(&out).unwrap();
        if got == old {
            saw_old = true;
        } else if got == new {
            saw_new = true;
        } else {
            panic!("kill after {delay_ms} ms left a mixed or truncated output");
        }
        // a killed run may leave its temporary file; remove it for the next round
        for name in names(dir.path()) {
            if name.ends_with(".strideweave-tmp") {
                fs::remove_file(dir.path().join(name)).unwrap();
            }
        }
    }
    assert!(saw_old, "no kill landed before the rename");
    eprintln!("saw the complete new output after a kill: {saw_new}");
}

/// A child's peak resident memory that is private and writable is bounded by
/// RLIMIT_DATA: a heap buffer the size of the tensor would fail to allocate.
#[test]
fn a_large_pack_does_not_hold_the_tensor_in_the_heap() {
    let dir = tempfile::tempdir().unwrap();
    let (input, out) = (dir.path().join("in.bin"), dir.path().join("out.bin"));
    let n = 32 * 1024 * 1024; // 128 MiB in, 64 MiB out
    let f = fs::File::create(&input).unwrap();
    f.set_len(n as u64 * 4).unwrap(); // sparse zeros
    let limit: u64 = 48 * 1024 * 1024;
    let mut cmd = bin();
    cmd.args(["pack", "--from", &format!("f32[{n}]"), "--to"])
        .arg(format!("bf16[{n}]"))
        .args([p(&input), p(&out)]);
    // SAFETY: only setrlimit between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            let lim = libc::rlimit {
                rlim_cur: limit as libc::rlim_t,
                rlim_max: limit as libc::rlim_t,
            };
            if libc::setrlimit(libc::RLIMIT_DATA, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let o = cmd.output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(fs::metadata(&out).unwrap().len(), n as u64 * 2);
}

#[test]
fn buffers_that_cannot_exist_are_one_line_errors_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let (input, out) = (dir.path().join("in.bin"), dir.path().join("out.bin"));
    fs::write(&input, f32_ramp(16)).unwrap();
    fs::write(&out, b"keep").unwrap();
    for to in [
        // 2^60-byte tiles (the abort: "memory allocation of 1152921504606846976 bytes failed")
        "f32[16] mla-tiled(roles=C, tile=(1,1,1,16), align=1152921504606846976)",
        // a 2^50-byte stride: a petabyte output
        "f32[2] strided(1125899906842624)",
    ] {
        let from = if to.starts_with("f32[2]") {
            "f32[2]"
        } else {
            "f32[16]"
        };
        let o = bin()
            .args(["pack", "--from", from, "--to", to, p(&input), p(&out)])
            .output()
            .unwrap();
        let err = one_error_line(&o);
        assert!(
            err.contains("no-space") || err.contains("too-large") || err.contains("overflow"),
            "{to}: {err}"
        );
        assert_eq!(fs::read(&out).unwrap(), b"keep");
        assert_eq!(names(dir.path()), ["in.bin", "out.bin"]);
    }
    // an input spec larger than the file: the file is not read into memory first
    let o = bin()
        .args([
            "argmax",
            "--axis",
            "0",
            "--from",
            "f32[16,1073741824]",
            "--to",
            "i32",
        ])
        .args([p(&input), p(&out)])
        .output()
        .unwrap();
    let err = one_error_line(&o);
    assert!(err.contains("input-too-short"), "{err}");
}

#[test]
fn a_sparse_input_much_larger_than_needed_is_mapped_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let (input, out) = (dir.path().join("in.bin"), dir.path().join("out.bin"));
    let f = fs::File::create(&input).unwrap();
    f.set_len(64 << 30).unwrap(); // 64 GiB, sparse
    drop(f);
    let o = bin()
        .args([
            "argmax",
            "--axis",
            "1",
            "--from",
            "f32[4,1024]",
            "--to",
            "i64",
        ])
        .args([p(&input), p(&out)])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(fs::read(&out).unwrap(), vec![0u8; 4 * 8]);
    // pack reads the same 64 GiB file the same way: only the bytes its spec needs
    let o = bin()
        .args(["pack", "--from", "f32[4,1024]", "--to", "bf16[4,1024]"])
        .args([p(&input), p(&out)])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(fs::read(&out).unwrap(), vec![0u8; 4 * 1024 * 2]);
}
