//! Files the CLI reads and writes: inputs memory-mapped, outputs written all or nothing.
//!
//! An output is built in a temporary file in the target's own directory (so the final
//! `rename` cannot cross file systems), with its blocks reserved up front (so a full disk
//! is an error before the kernel runs, never a `SIGBUS` in the middle), synced, and only
//! then renamed over the target; the directory is synced after. Whatever happens before
//! the rename (an error, a full disk, `kill -9`), the target keeps its old contents; after
//! it, the target holds the complete new ones. Where an existing output is updated in
//! place (gaps keep their bytes), the temporary starts as a copy of it.
//!
//! Tensor data is never read into the heap: inputs and outputs are memory-mapped, so a
//! multi-gigabyte `pack` runs in bounded memory and a 64 GiB sparse input costs only the
//! pages the plan reads.

use memmap2::{Mmap, MmapMut, MmapOptions};
use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use tempfile::NamedTempFile;

/// Largest buffer this process could ever map: its address space (`isize::MAX` bytes).
const ADDRESS_SPACE: u64 = isize::MAX as u64;

/// `path` shown in messages.
fn shown(path: &Path) -> String {
    path.display().to_string()
}

/// Fails unless a buffer of `bytes` can exist in this process.
pub fn check_addressable(bytes: u64, what: &str) -> Result<usize, String> {
    if bytes > ADDRESS_SPACE {
        return Err(format!(
            "too-large: {what} needs {bytes} bytes, more than this machine's address space ({ADDRESS_SPACE} bytes)"
        ));
    }
    usize::try_from(bytes).map_err(|_| format!("too-large: {what} needs {bytes} bytes"))
}

/// A read-only view of the first `len` bytes of an input file.
pub struct Input {
    map: Option<Mmap>,
}

impl Input {
    /// Maps the first `required` bytes of `path`; an error names the file and what is
    /// wrong (missing, too short, unreadable). A pipe or other non-seekable input is first
    /// copied, up to `required` bytes, into an anonymous temporary file.
    pub fn open(path: &Path, required: u64) -> Result<Input, String> {
        let len = check_addressable(required, "the input")?;
        let mut file =
            File::open(path).map_err(|e| format!("io: cannot open {}: {e}", shown(path)))?;
        let meta = file
            .metadata()
            .map_err(|e| format!("io: {}: {e}", shown(path)))?;
        if meta.is_dir() {
            return Err(format!("io: {} is a directory", shown(path)));
        }
        if !meta.is_file() {
            let mut copy = tempfile::tempfile().map_err(|e| format!("io: temporary file: {e}"))?;
            io::copy(&mut (&mut file).take(required), &mut copy)
                .map_err(|e| format!("io: reading {}: {e}", shown(path)))?;
            file = copy;
        }
        let have = file
            .metadata()
            .map_err(|e| format!("io: {}: {e}", shown(path)))?
            .len();
        if have < required {
            return Err(format!(
                "input-too-short: {} holds {have} bytes, the input needs {required}",
                shown(path)
            ));
        }
        if len == 0 {
            return Ok(Input { map: None });
        }
        // SAFETY: the mapping is read-only and lives no longer than `self`; a file
        // truncated by another process meanwhile is outside what the tool can guard (as for
        // every memory-mapping reader).
        let map = unsafe { MmapOptions::new().len(len).map(&file) }
            .map_err(|e| format!("io: cannot map {} ({len} bytes): {e}", shown(path)))?;
        let _ = map.advise(memmap2::Advice::Sequential);
        Ok(Input { map: Some(map) })
    }

    /// The bytes.
    pub fn bytes(&self) -> &[u8] {
        self.map.as_deref().unwrap_or(&[])
    }
}

/// Where an output's bytes go until [`Output::commit`].
enum Staging {
    /// A temporary file beside a regular (or not yet existing) target, renamed over it.
    Beside(NamedTempFile),
    /// An anonymous temporary file whose bytes are copied into a target that is not a
    /// regular file (`/dev/null`, a pipe): renaming over a device would replace it.
    Anonymous(File),
}

/// An output file under construction: a writable mapping of its first `len` bytes.
pub struct Output {
    target: PathBuf,
    staging: Staging,
    map: Option<MmapMut>,
}

impl Output {
    /// Stages an output of `len` bytes for `path`: a copy of the existing file when it is
    /// a regular file of at least `len` bytes and `update_in_place` holds, else `len` zero
    /// bytes. Nothing at `path` changes until [`Output::commit`].
    pub fn create(path: &Path, len: u64, update_in_place: bool) -> Result<Output, String> {
        let n = check_addressable(len, &format!("output {}", shown(path)))?;
        let target = resolve_symlink(path);
        let meta = fs::metadata(&target).ok();
        if meta.as_ref().is_some_and(|m| m.is_dir()) {
            return Err(format!("io: {} is a directory", shown(path)));
        }
        let special = meta.as_ref().is_some_and(|m| !m.is_file());
        let existing = meta
            .as_ref()
            .filter(|m| m.is_file() && update_in_place && m.len() >= len);
        let dir = target
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        if !special {
            let needed = existing.map_or(len, |m| m.len());
            check_free_space(dir, needed, path)?;
        }
        let staging = if special {
            Staging::Anonymous(
                tempfile::tempfile().map_err(|e| format!("io: temporary file: {e}"))?,
            )
        } else {
            Staging::Beside(temp_beside(&target, dir, meta.as_ref())?)
        };
        let mut out = Output {
            target,
            staging,
            map: None,
        };
        let file = out.file();
        if let Some(m) = existing {
            let mut old = File::open(&out.target)
                .map_err(|e| format!("io: cannot open {}: {e}", shown(path)))?;
            let copied = io::copy(&mut old, &mut &*file)
                .map_err(|e| format!("io: copying {}: {e}", shown(path)))?;
            if copied != m.len() {
                return Err(format!(
                    "io: {} changed while it was copied ({} bytes, then {copied})",
                    shown(path),
                    m.len()
                ));
            }
        } else {
            file.set_len(len)
                .map_err(|e| format!("io: cannot size the output for {}: {e}", shown(path)))?;
        }
        reserve(file, len).map_err(|e| format!("io: writing {}: {e}", shown(path)))?;
        if n > 0 {
            // SAFETY: the file is our own unlinked or freshly created temporary, sized to at
            // least `n` bytes with its blocks reserved; nothing else maps or truncates it.
            let map = unsafe { MmapOptions::new().len(n).map_mut(file) }
                .map_err(|e| format!("io: cannot map the output ({n} bytes): {e}"))?;
            out.map = Some(map);
        }
        Ok(out)
    }

    fn file(&self) -> &File {
        match &self.staging {
            Staging::Beside(t) => t.as_file(),
            Staging::Anonymous(f) => f,
        }
    }

    /// The output's bytes, to be filled.
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        self.map.as_deref_mut().unwrap_or(&mut [])
    }

    /// Syncs the bytes and moves them into place: a rename over the target (then a sync
    /// of its directory), or, for a device or pipe, a copy into it.
    pub fn commit(self) -> Result<(), String> {
        let target = self.target;
        let io_err = |e: io::Error| format!("io: writing {}: {e}", shown(&target));
        if let Some(map) = &self.map {
            map.flush().map_err(io_err)?;
        }
        drop(self.map);
        match self.staging {
            Staging::Beside(temp) => {
                temp.as_file().sync_all().map_err(io_err)?;
                temp.persist(&target).map_err(|e| io_err(e.error))?;
                sync_dir(&target);
                Ok(())
            }
            Staging::Anonymous(mut f) => {
                use std::io::Seek;
                f.rewind().map_err(io_err)?;
                let mut dst = fs::OpenOptions::new()
                    .write(true)
                    .open(&target)
                    .map_err(|e| format!("io: cannot open {}: {e}", shown(&target)))?;
                io::copy(&mut f, &mut dst).map_err(io_err)?;
                dst.flush().map_err(io_err)
            }
        }
    }
}

/// Writes `bytes` to `path` all or nothing (see the module docs); a `path` that is not a
/// regular file (a device, a pipe) is written directly.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let mut out = Output::create(path, bytes.len() as u64, false)?;
    out.bytes_mut().copy_from_slice(bytes);
    out.commit()
}

/// The file a symbolic link points to, so that the link itself survives the rename; the
/// path itself when it is not a link or the link dangles.
fn resolve_symlink(path: &Path) -> PathBuf {
    match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => fs::canonicalize(path).unwrap_or(path.into()),
        _ => path.into(),
    }
}

/// A temporary file in `dir` named after `target`, with the target's permissions (or the
/// usual `0666` less the umask for a new file).
fn temp_beside(
    target: &Path,
    dir: &Path,
    meta: Option<&fs::Metadata>,
) -> Result<NamedTempFile, String> {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let prefix = format!(".{name}.");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".strideweave-tmp");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(fs::Permissions::from_mode(0o666));
    }
    let temp = builder.tempfile_in(dir).map_err(|e| {
        // the OS error alone: tempfile's own text repeats the random temporary name
        let e = e.to_string();
        let e = e.split(" at path \"").next().unwrap_or_default();
        format!(
            "io: cannot write {}: cannot create a temporary file in {}: {e}",
            shown(target),
            shown(dir)
        )
    })?;
    if let Some(m) = meta {
        // keep the mode of the file being replaced (the umask applied to the new one)
        let _ = temp.as_file().set_permissions(m.permissions());
    }
    Ok(temp)
}

/// Fails when the file system holding `dir` cannot take `bytes` more bytes.
#[cfg(unix)]
fn check_free_space(dir: &Path, bytes: u64, target: &Path) -> Result<(), String> {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c_dir) = std::ffi::CString::new(dir.as_os_str().as_bytes()) else {
        return Ok(());
    };
    let mut st = std::mem::MaybeUninit::<libc::statvfs>::uninit();
    // SAFETY: `c_dir` is a NUL-terminated path and `st` is writable storage for the result.
    if unsafe { libc::statvfs(c_dir.as_ptr(), st.as_mut_ptr()) } != 0 {
        return Ok(()); // unknown: the reservation below still catches a full disk
    }
    // SAFETY: statvfs returned 0, so it filled `st`.
    let st = unsafe { st.assume_init() };
    #[allow(clippy::useless_conversion)] // the field types differ between platforms
    let free = u64::from(st.f_bavail).saturating_mul(u64::from(st.f_frsize));
    if bytes > free {
        return Err(format!(
            "no-space: {} needs {bytes} bytes, the file system of {} has {free} free",
            shown(target),
            shown(dir)
        ));
    }
    Ok(())
}

#[cfg(not(unix))]
fn check_free_space(_dir: &Path, _bytes: u64, _target: &Path) -> Result<(), String> {
    Ok(())
}

/// Reserves the blocks of the first `len` bytes, so that writing through the mapping
/// cannot hit a full disk.
#[cfg(unix)]
fn reserve(file: &File, len: u64) -> io::Result<()> {
    use std::os::unix::io::AsRawFd;
    if len == 0 {
        return Ok(());
    }
    let len =
        libc::off_t::try_from(len).map_err(|_| io::Error::from(io::ErrorKind::FileTooLarge))?;
    // SAFETY: a valid open descriptor and a non-negative range.
    match unsafe { libc::posix_fallocate(file.as_raw_fd(), 0, len) } {
        0 => Ok(()),
        // file systems that cannot reserve: the writes themselves will report a full disk
        libc::EOPNOTSUPP | libc::EINVAL => Ok(()),
        e => Err(io::Error::from_raw_os_error(e)),
    }
}

#[cfg(not(unix))]
fn reserve(_file: &File, _len: u64) -> io::Result<()> {
    Ok(())
}

/// Syncs the directory holding `path`, so that the rename itself survives a crash.
fn sync_dir(path: &Path) {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
}
