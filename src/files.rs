//! Every file the program reads as data or writes as output goes through
//! here: data is read only from regular files under a size limit, names
//! in data files resolve only inside their own folder, and output is
//! written whole (a temporary file beside the target, synced, renamed over
//! it) into regular files only, keeping the target's permissions.

use std::io::{Read, Write};
use std::path::{Component, Path, PathBuf};

/// The largest data file read (maps, packs, variants, scenarios, saves,
/// Lua, recorded throws). Real ones are a few kilobytes.
pub const MAX_DATA_BYTES: u64 = 8 << 20;

/// The most characters of a file's text quoted in an error message.
pub const MAX_EXCERPT: usize = 200;

/// Reads a regular file of at most MAX_DATA_BYTES as UTF-8 text.
pub fn read_text(path: &Path) -> Result<String, String> {
    let f = std::fs::File::open(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let meta = f.metadata().map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if !meta.is_file() {
        return Err(format!("cannot read {}: not a regular file", path.display()));
    }
    if meta.len() > MAX_DATA_BYTES {
        return Err(format!("cannot read {}: {} bytes, more than the limit of {MAX_DATA_BYTES}", path.display(), meta.len()));
    }
    let mut bytes = Vec::new();
    f.take(MAX_DATA_BYTES + 1).read_to_end(&mut bytes).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if bytes.len() as u64 > MAX_DATA_BYTES {
        return Err(format!("cannot read {}: more than the limit of {MAX_DATA_BYTES} bytes", path.display()));
    }
    String::from_utf8(bytes).map_err(|e| format!("cannot read {}: not UTF-8 text (byte {})", path.display(), e.utf8_error().valid_up_to()))
}

/// `name` (from a data file) as a path inside `dir`: relative, no `..`,
/// and, after following symbolic links, still inside `dir`.
pub fn inside(dir: &Path, name: &str) -> Result<PathBuf, String> {
    let rel = Path::new(name);
    if name.is_empty() || rel.components().any(|c| !matches!(c, Component::Normal(_) | Component::CurDir)) {
        return Err(format!("`{}` must be a file name inside {} (no absolute path, no `..`)", excerpt(name), dir.display()));
    }
    let path = dir.join(rel);
    if let (Ok(real_dir), Ok(real)) = (dir.canonicalize(), path.canonicalize())
        && !real.starts_with(&real_dir)
    {
        return Err(format!("`{}` leads outside {} (through a symbolic link)", excerpt(name), dir.display()));
    }
    Ok(path)
}

/// At most MAX_EXCERPT characters of `text`, control characters escaped.
pub fn excerpt(text: &str) -> String {
    let mut out = sanitize(&text.chars().take(MAX_EXCERPT).collect::<String>());
    if text.chars().nth(MAX_EXCERPT).is_some() {
        out.push_str("...");
    }
    out
}

/// Text safe to print on a terminal: control characters (ANSI escapes,
/// NUL, carriage returns) shown as `\u{..}` escapes; newlines and tabs kept.
pub fn sanitize(text: &str) -> String {
    if !text.chars().any(|c| c.is_control() && c != '\n' && c != '\t') {
        return text.to_string();
    }
    // One string written in place (a string per character took several
    // times the text's size, and as long, for a long text).
    let mut out = String::with_capacity(text.len() + text.len() / 4);
    for c in text.chars() {
        if c.is_control() && c != '\n' && c != '\t' {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    out
}

/// The temporary files of `AtomicFile`s not yet committed or dropped: what
/// an interrupted process removes (`remove_partial_files_on_signal`).
static PENDING: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());

fn pending() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    PENDING.lock().unwrap_or_else(|e| e.into_inner())
}

/// From now on SIGINT, SIGTERM and SIGHUP remove every unfinished
/// `AtomicFile` before the process exits (128 + the signal's number, as
/// the shell reports a killed process). The signals are blocked in this
/// thread and every thread it starts later, and taken by one thread of
/// their own with sigwait, so nothing runs inside a signal handler: call
/// this before starting worker threads.
pub fn remove_partial_files_on_signal() {
    #[cfg(unix)]
    static ONCE: std::sync::Once = std::sync::Once::new();
    #[cfg(unix)]
    ONCE.call_once(|| {
        // SAFETY: plain libc calls on a sigset_t this function owns.
        let set = unsafe {
            let mut set: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
                libc::sigaddset(&mut set, sig);
            }
            libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
            set
        };
        std::thread::spawn(move || {
            let mut sig: libc::c_int = 0;
            // SAFETY: the set was filled above; sig is a valid out-pointer.
            if unsafe { libc::sigwait(&set, &mut sig) } != 0 {
                return;
            }
            for tmp in pending().iter() {
                let _ = std::fs::remove_file(tmp);
            }
            std::process::exit(128 + sig);
        });
    });
}

/// A file written whole or not at all: a temporary file beside the target,
/// synced and renamed over it by `commit`; removed if never committed (or
/// if the process is interrupted, after `remove_partial_files_on_signal`).
/// Special files (devices, FIFOs, directories, symbolic links) at the
/// target are refused; an existing file keeps its permissions.
pub struct AtomicFile {
    target: PathBuf,
    tmp: PathBuf,
    out: Option<std::io::BufWriter<std::fs::File>>,
}

impl AtomicFile {
    pub fn create(target: &Path) -> Result<AtomicFile, String> {
        let fail = |e: std::io::Error| format!("cannot write {}: {e}", target.display());
        let existing = match std::fs::symlink_metadata(target) {
            Ok(m) if m.is_file() => Some(m.permissions()),
            Ok(_) => return Err(format!("cannot write {}: not a regular file; refusing to replace it", target.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(fail(e)),
        };
        let name = target.file_name().ok_or_else(|| format!("cannot write {}: not a file name", target.display()))?;
        let tmp = target.with_file_name(format!(".{}.{}.partial", name.to_string_lossy(), std::process::id()));
        // create_new: never follows a link or reuses a file planted there.
        let f = std::fs::OpenOptions::new().write(true).create_new(true).open(&tmp).map_err(fail)?;
        pending().push(tmp.clone());
        let file = AtomicFile { target: target.to_path_buf(), tmp, out: Some(std::io::BufWriter::new(f)) };
        if let Some(perms) = existing {
            std::fs::set_permissions(&file.tmp, perms).map_err(fail)?;
        }
        Ok(file)
    }

    pub fn write(&mut self, bytes: &[u8]) -> Result<(), String> {
        let out = self.out.as_mut().expect("open until committed");
        out.write_all(bytes).map_err(|e| format!("cannot write {}: {e}", self.target.display()))
    }

    /// Overwrites the file's first `bytes.len()` bytes (written before) and
    /// goes on writing at its end: a header completed once the rest is known.
    pub fn rewrite_start(&mut self, bytes: &[u8]) -> Result<(), String> {
        use std::io::{Seek, SeekFrom};
        let fail = |e: std::io::Error| format!("cannot write {}: {e}", self.target.display());
        let out = self.out.as_mut().expect("open until committed");
        out.flush().map_err(fail)?;
        let f = out.get_mut();
        f.seek(SeekFrom::Start(0)).map_err(fail)?;
        f.write_all(bytes).map_err(fail)?;
        f.seek(SeekFrom::End(0)).map_err(fail)?;
        Ok(())
    }

    /// `text` and a newline.
    pub fn line(&mut self, text: &str) -> Result<(), String> {
        self.write(text.as_bytes())?;
        self.write(b"\n")
    }

    pub fn commit(mut self) -> Result<(), String> {
        let fail = |e: std::io::Error| format!("cannot write {}: {e}", self.target.display());
        let out = self.out.take().expect("open until committed");
        let f = out.into_inner().map_err(|e| fail(e.into_error()))?;
        f.sync_all().map_err(fail)?;
        drop(f);
        // The target may have become a special file meanwhile.
        if let Ok(m) = std::fs::symlink_metadata(&self.target)
            && !m.is_file()
        {
            return Err(format!("cannot write {}: not a regular file; refusing to replace it", self.target.display()));
        }
        std::fs::rename(&self.tmp, &self.target).map_err(fail)?;
        if let Some(dir) = self.target.parent().map(|d| if d.as_os_str().is_empty() { Path::new(".") } else { d })
            && let Ok(d) = std::fs::File::open(dir)
        {
            let _ = d.sync_all();
        }
        Ok(())
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        // Gone after a rename; removed after any failure.
        let _ = std::fs::remove_file(&self.tmp);
        pending().retain(|p| p != &self.tmp);
    }
}

/// Writes `bytes` to `path` whole (see AtomicFile).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let mut f = AtomicFile::create(path)?;
    f.write(bytes)?;
    f.commit()
}
