//! The administrator of a first start: a random password, its Argon2id hash in the users file,
//! the password itself in `<state-dir>/admin.password`; both files 0600. There is no default
//! password: without the users file nobody could log in, so pfcd makes one.

use std::io::{Read as _, Write as _};
use std::os::unix::fs::OpenOptionsExt as _;
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
    if users_file.exists() {
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

/// Writes `text` to a new file readable by its owner only (replacing a leftover).
fn write_private(path: &Path, text: &str) -> Result<(), CredentialsError> {
    let err = |source| CredentialsError::Write { path: path.to_path_buf(), source };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(err)?;
    }
    let _ = std::fs::remove_file(path);
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .map_err(err)?;
    f.write_all(text.as_bytes()).map_err(err)?;
    f.sync_all().map_err(err)
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
}
