//! The administrator of a first start: a random password, its Argon2id hash in the users file,
//! the password itself in `<state-dir>/admin.password`; both files 0600. There is no default
//! password: without the users file nobody could log in, so pfcd makes one. Both files are
//! written whole or not at all (`mgmt::state_dir::write_file`): a power cut during the first
//! start leaves no users file, or a complete one, never an empty one nobody can log in with.

use std::io::Read as _;
use std::path::{Path, PathBuf};

/// The file holding the administrator's password, in the state directory.
pub const PASSWORD_FILE: &str = "admin.password";

/// Characters of a generated password: letters and digits, easy to paste anywhere.
const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
/// 20 characters of 62: about 119 bits.
const PASSWORD_LEN: usize = 20;

/// Why the administrator could not be created.
#[derive(Debug, thiserror::Error)]
pub enum CredentialsError {
    #[error("cannot write {path}: {source}")]
    Write { path: PathBuf, source: std::io::Error },
    #[error("cannot read the system's random source: {0}")]
    Random(std::io::Error),
    #[error(transparent)]
    Hash(#[from] mgmt::users::HashError),
}

/// What a start found or made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Admin {
    /// Created now: the password is in `password_file`.
    Created { password_file: PathBuf },
    /// Created by an earlier start; its password file is still there.
    Existing { password_file: PathBuf },
    /// The users file exists but pfcd's password file does not (the operator manages users).
    Managed,
}

/// Creates the administrator if the users file does not exist yet.
pub fn ensure_admin(
    users_file: &Path,
    state_dir: &Path,
    user: &str,
) -> Result<Admin, CredentialsError> {
    let password_file = state_dir.join(PASSWORD_FILE);
    if users_file.exists() && !torn_first_start(users_file, &password_file) {
        return Ok(if password_file.exists() {
            Admin::Existing { password_file }
        } else {
            Admin::Managed
        });
    }
    let password = random_password()?;
    let hash = mgmt::users::hash_password(&password)?;
    // The password first: a start cut between the two files leaves no users file, and the
    // next start makes both again.
    write_private(&password_file, &format!("{password}\n"))?;
    write_private(
        users_file,
        &format!("# pfcd's administrator (made on first start)\n{user} password {hash}\n"),
    )?;
    Ok(Admin::Created { password_file })
}

/// An empty users file beside pfcd's password file: what a power cut during a first start
/// could leave before its writes were whole (the file created, its text not yet on disk).
/// Nobody can log in with it, so the administrator is made again. (An operator's empty users
/// file has no password file beside it and is kept.)
fn torn_first_start(users_file: &Path, password_file: &Path) -> bool {
    password_file.exists() && std::fs::metadata(users_file).is_ok_and(|m| m.len() == 0)
}

fn random_password() -> Result<String, CredentialsError> {
    let mut random = std::fs::File::open("/dev/urandom").map_err(CredentialsError::Random)?;
    let mut password = String::with_capacity(PASSWORD_LEN);
    let mut byte = [0u8; 1];
    while password.len() < PASSWORD_LEN {
        random.read_exact(&mut byte).map_err(CredentialsError::Random)?;
        // 248 = 4 × 62: taking bytes below it keeps every character equally likely.
        if byte[0] < 248 {
            password.push(char::from(ALPHABET[usize::from(byte[0]) % ALPHABET.len()]));
        }
    }
    Ok(password)
}

/// Writes `text` to a file readable by its owner only, whole or not at all.
fn write_private(path: &Path, text: &str) -> Result<(), CredentialsError> {
    let err = |source| CredentialsError::Write { path: path.to_path_buf(), source };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(err)?;
    }
    mgmt::state_dir::write_file(path, text.as_bytes(), 0o600).map_err(err)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt as _;

    #[test]
    fn first_start_makes_both_files_private_and_later_starts_keep_them() {
        let dir = std::env::temp_dir().join(format!("pfcd-credentials-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let users = dir.join("users");
        let made = ensure_admin(&users, &dir, "admin").expect("made");
        let Admin::Created { password_file } = made else { panic!("{made:?}") };
        let password = std::fs::read_to_string(&password_file).expect("read");
        let password = password.trim();
        assert_eq!(password.len(), PASSWORD_LEN);
        for f in [&users, &password_file] {
            let mode = std::fs::metadata(f).expect("exists").permissions().mode() & 0o777;
            assert_eq!(mode, 0o600, "{}", f.display());
        }
        let parsed = mgmt::users::Users::load(&users).expect("a valid users file");
        assert!(parsed.verify_password("admin", password));
        assert!(!parsed.verify_password("admin", "admin"));
        assert_eq!(
            ensure_admin(&users, &dir, "admin").expect("again"),
            Admin::Existing { password_file }
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// What a power cut during a first start could leave: the password file written, the users
    /// file created but empty. The next start makes the administrator again, so someone can
    /// log in; an empty users file of the operator's (no password file of pfcd's) is kept.
    #[test]
    fn an_empty_users_file_left_by_a_cut_first_start_is_made_again() {
        let dir =
            std::env::temp_dir().join(format!("pfcd-credentials-torn-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("dir");
        let users = dir.join("users");
        std::fs::write(dir.join(PASSWORD_FILE), "lost\n").expect("password file");
        std::fs::write(&users, "").expect("empty users file");
        let made = ensure_admin(&users, &dir, "admin").expect("made");
        let Admin::Created { password_file } = made else { panic!("made again: {made:?}") };
        let password = std::fs::read_to_string(&password_file).expect("read");
        let parsed = mgmt::users::Users::load(&users).expect("a valid users file");
        assert!(parsed.verify_password("admin", password.trim()), "the new password logs in");

        std::fs::remove_file(&password_file).expect("the operator manages users");
        std::fs::write(&users, "").expect("empty users file");
        assert_eq!(ensure_admin(&users, &dir, "admin").expect("kept"), Admin::Managed);
        assert_eq!(std::fs::read_to_string(&users).expect("kept"), "");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A leftover temporary file (or a link planted in its place) does not stop the first
    /// start, and nothing is written through a link.
    #[test]
    fn the_first_start_writes_through_no_link() {
        let dir =
            std::env::temp_dir().join(format!("pfcd-credentials-link-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("dir");
        let victim = dir.join("victim");
        std::fs::write(&victim, "precious").expect("victim");
        let users = dir.join("users");
        std::os::unix::fs::symlink(&victim, dir.join(PASSWORD_FILE)).expect("symlink");
        std::os::unix::fs::symlink(&victim, dir.join("users.tmp")).expect("symlink");
        ensure_admin(&users, &dir, "admin").expect("made");
        assert_eq!(std::fs::read_to_string(&victim).expect("victim"), "precious");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
