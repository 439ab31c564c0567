//! Prints the Argon2id hash of a password read from standard input, ready for a users file:
//!
//! ```text
//! echo -n 'wonderland' | cargo run -p mgmt --example hash_password
//! ```

use std::io::Read;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut password = String::new();
    std::io::stdin().read_to_string(&mut password)?;
    let password = password.strip_suffix('\n').unwrap_or(&password);
    if password.is_empty() {
        return Err("empty password: type one on standard input".into());
    }
    println!("{}", mgmt::access::users::hash_password(password)?);
    Ok(())
}
