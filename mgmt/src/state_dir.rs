//! The state directory, which holds the host key, the datastores and (for pfcd) the users file
//! and the administrator's password: checked before anything in it is trusted, and written
//! through without following links or leaving a half-written file.
//!
//! A server run as root reads its keys and users from here and writes them here, so whoever
//! can write the directory, or any directory above it, or plant a link in it, could plant a
//! users file or have a key written over another file. The directory must be owned by the
//! effective user and writable by nobody else; each directory above it owned by root or that
//! user and writable by nobody else, unless sticky (`/tmp`: nobody can rename or remove what
//! another user owns there); a symbolic link on the way owned by root or that user.

use std::io::Write as _;
use std::os::unix::fs::{DirBuilderExt as _, MetadataExt as _};
use std::path::{Path, PathBuf};

use rustix::fs::{Mode, OFlags};
use thiserror::Error;

/// Why a state directory is refused or cannot be made.
#[derive(Debug, Error)]
pub enum StateDirError {
    /// Creating or reading it failed.
    #[error("cannot prepare the state directory {path}: {source}")]
    Io {
        /// The directory (or the part of its path) that failed.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// It, a directory above it or a link on its path is unsafe to trust.
    #[error("refusing the state directory {dir}: {problem}")]
    Unsafe {
        /// The state directory.
        dir: PathBuf,
        /// What is wrong and what to do about it.
        problem: String,
    },
}

/// Makes `dir` (mode 0700, and its missing parents) if it does not exist, then checks it
/// with [`check`].
pub fn prepare(dir: &Path) -> Result<(), StateDirError> {
    let io = |source| StateDirError::Io { path: dir.to_path_buf(), source };
    if std::fs::symlink_metadata(dir).is_err() {
        std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir).map_err(io)?;
    }
    check(dir)
}

/// Refuses `dir` unless it is a directory owned by the effective user and writable by nobody
/// else, every directory above it is owned by root or that user and writable by nobody else
/// (or sticky), and every symbolic link on its path is owned by root or that user. The
/// message names what is wrong and the command that fixes it.
pub fn check(dir: &Path) -> Result<(), StateDirError> {
    let io = |path: &Path, source| StateDirError::Io { path: path.to_path_buf(), source };
    let euid = rustix::process::geteuid().as_raw();
    let unsafe_dir = |problem: String| StateDirError::Unsafe { dir: dir.to_path_buf(), problem };
    let absolute = std::path::absolute(dir).map_err(|e| io(dir, e))?;
    for link in absolute.ancestors() {
        let meta = std::fs::symlink_metadata(link).map_err(|e| io(link, e))?;
        if meta.file_type().is_symlink() && !trusted_owner(meta.uid(), euid) {
            return Err(unsafe_dir(format!(
                "the symbolic link {} is owned by uid {}, who can point it elsewhere; \
                 replace it with one owned by root or uid {euid}, or give the real path",
                link.display(),
                meta.uid()
            )));
        }
    }
    let real = std::fs::canonicalize(&absolute).map_err(|e| io(&absolute, e))?;
    let meta = std::fs::metadata(&real).map_err(|e| io(&real, e))?;
    if !meta.is_dir() {
        return Err(unsafe_dir(format!("{} is not a directory", real.display())));
    }
    if meta.uid() != euid {
        return Err(unsafe_dir(format!(
            "it is owned by uid {}, not by the user pfcd runs as (uid {euid}); \
             run `chown {euid} {}` or choose another state directory",
            meta.uid(),
            real.display()
        )));
    }
    if meta.mode() & 0o022 != 0 {
        return Err(unsafe_dir(format!(
            "it is writable by group or others (mode {:04o}); run `chmod go-w {}`",
            meta.mode() & 0o7777,
            real.display()
        )));
    }
    for parent in real.ancestors().skip(1) {
        let meta = std::fs::metadata(parent).map_err(|e| io(parent, e))?;
        if !trusted_owner(meta.uid(), euid) {
            return Err(unsafe_dir(format!(
                "{}, above it, is owned by uid {}, who could replace the state directory; \
                 choose a state directory whose parents are owned by root or uid {euid}",
                parent.display(),
                meta.uid()
            )));
        }
        let sticky = meta.mode() & 0o1000 != 0;
        if meta.mode() & 0o022 != 0 && !sticky {
            return Err(unsafe_dir(format!(
                "{}, above it, is writable by group or others (mode {:04o}), who could \
                 replace the state directory; run `chmod go-w {}` or choose another state \
                 directory",
                parent.display(),
                meta.mode() & 0o7777,
                parent.display()
            )));
        }
    }
    Ok(())
}

fn trusted_owner(uid: u32, euid: u32) -> bool {
    uid == 0 || uid == euid
}

/// Writes `bytes` to `path` (permissions `mode`) so that a crash leaves either the old file or
/// the new one whole, never a part: a temporary file beside it, created only if no file or
/// link has that name (a leftover one is removed first; the link itself, not what it points
/// to), never through a link; synced, renamed over `path` (which replaces a link there
/// rather than following it), and the rename synced.
pub fn write_file(path: &Path, bytes: &[u8], mode: u32) -> std::io::Result<()> {
    let name = path.file_name().ok_or_else(|| {
        std::io::Error::new(std::io::ErrorKind::InvalidInput, "a file name is needed")
    })?;
    let mut tmp_name = name.to_os_string();
    tmp_name.push(".tmp");
    let tmp = path.with_file_name(tmp_name);
    match std::fs::remove_file(&tmp) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let fd = rustix::fs::open(&tmp, flags, Mode::from_raw_mode(mode))?;
    let mut file = std::fs::File::from(fd);
    // The mode given to open(2) is narrowed by the umask; the file gets exactly `mode`.
    rustix::fs::fchmod(&file, Mode::from_raw_mode(mode))?;
    file.write_all(bytes)?;
    file.sync_all()?;
    drop(file);
    std::fs::rename(&tmp, path)?;
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    std::fs::File::open(dir)?.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt as _;

    fn set_mode(path: &Path, mode: u32) {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
    }

    fn refusal(dir: &Path) -> String {
        match prepare(dir) {
            Err(e @ StateDirError::Unsafe { .. }) => e.to_string(),
            other => panic!("refused as unsafe: {other:?}"),
        }
    }

    #[test]
    fn a_new_directory_is_made_private_and_accepted() {
        let top = tempfile::tempdir().expect("tempdir");
        let dir = top.path().join("a/state");
        prepare(&dir).expect("made and accepted");
        let mode = std::fs::metadata(&dir).expect("made").permissions().mode() & 0o777;
        assert_eq!(mode, 0o700);
        prepare(&dir).expect("accepted again");
    }

    #[test]
    fn a_directory_others_can_write_is_refused_with_the_fix() {
        let top = tempfile::tempdir().expect("tempdir");
        let dir = top.path().join("state");
        std::fs::create_dir(&dir).expect("mkdir");
        set_mode(&dir, 0o777);
        let why = refusal(&dir);
        assert!(why.contains("writable by group or others (mode 0777)"), "{why}");
        assert!(why.contains(&format!("chmod go-w {}", dir.display())), "{why}");
        set_mode(&dir, 0o750);
        prepare(&dir).expect("accepted once fixed");
    }

    #[test]
    fn a_parent_others_can_write_is_refused_unless_sticky() {
        let top = tempfile::tempdir().expect("tempdir");
        let parent = top.path().join("shared");
        let dir = parent.join("state");
        std::fs::create_dir_all(&dir).expect("mkdir");
        set_mode(&parent, 0o777);
        let why = refusal(&dir);
        assert!(why.contains(&format!("{}, above it, is writable", parent.display())), "{why}");
        set_mode(&parent, 0o1777);
        prepare(&dir).expect("a sticky parent, as /tmp, is accepted");
    }

    #[test]
    fn a_directory_owned_by_another_user_is_refused() {
        if !rustix::process::geteuid().is_root() {
            return; // Only root can give a directory away.
        }
        let top = tempfile::tempdir().expect("tempdir");
        let dir = top.path().join("state");
        std::fs::create_dir(&dir).expect("mkdir");
        std::os::unix::fs::chown(&dir, Some(12_345), None).expect("chown");
        let why = refusal(&dir);
        assert!(why.contains("owned by uid 12345"), "{why}");
        assert!(why.contains("chown 0"), "{why}");
    }

    #[test]
    fn a_link_to_the_directory_owned_by_another_user_is_refused() {
        if !rustix::process::geteuid().is_root() {
            return;
        }
        let top = tempfile::tempdir().expect("tempdir");
        let real = top.path().join("real");
        std::fs::create_dir(&real).expect("mkdir");
        let link = top.path().join("state");
        std::os::unix::fs::symlink(&real, &link).expect("symlink");
        prepare(&link).expect("a link of our own is fine");
        std::os::unix::fs::lchown(&link, Some(12_345), None).expect("lchown");
        let why = refusal(&link);
        assert!(why.contains("symbolic link"), "{why}");
    }

    #[test]
    fn writing_replaces_a_planted_link_and_never_writes_through_one() {
        let top = tempfile::tempdir().expect("tempdir");
        let victim = top.path().join("victim");
        std::fs::write(&victim, "precious").expect("victim");
        let path = top.path().join("users");
        // A link where the file goes, and one where its temporary file goes.
        std::os::unix::fs::symlink(&victim, &path).expect("symlink");
        std::os::unix::fs::symlink(&victim, top.path().join("users.tmp")).expect("symlink");
        write_file(&path, b"admin password x\n", 0o600).expect("written");
        assert_eq!(std::fs::read_to_string(&victim).expect("victim"), "precious");
        let meta = std::fs::symlink_metadata(&path).expect("written");
        assert!(meta.is_file(), "a file now, not a link");
        assert_eq!(meta.permissions().mode() & 0o777, 0o600);
        assert_eq!(std::fs::read_to_string(&path).expect("read"), "admin password x\n");
    }
}
