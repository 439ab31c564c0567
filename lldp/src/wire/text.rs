//! Octet strings that are meant to be read as text.

use std::fmt;

/// An octet string 802.1AB calls alphanumeric (port and system descriptions, system name,
/// interface names). It is kept as octets so that a peer's non-UTF-8 bytes are never lost and
/// are re-emitted as received; [`Text::as_str`] and `Display` give the text.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Text(pub Vec<u8>);

impl Text {
    /// The text, if the octets are UTF-8.
    pub fn as_str(&self) -> Option<&str> {
        std::str::from_utf8(&self.0).ok()
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl From<&str> for Text {
    fn from(s: &str) -> Self {
        Text(s.as_bytes().to_vec())
    }
}

impl From<String> for Text {
    fn from(s: String) -> Self {
        Text(s.into_bytes())
    }
}

impl From<&[u8]> for Text {
    fn from(b: &[u8]) -> Self {
        Text(b.to_vec())
    }
}

/// UTF-8 text as it is; anything else with each invalid sequence replaced by U+FFFD.
impl fmt::Display for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&String::from_utf8_lossy(&self.0))
    }
}

impl fmt::Debug for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.as_str() {
            Some(s) => write!(f, "Text({s:?})"),
            None => write!(f, "Text({:02x?})", self.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_utf8_is_kept_and_shown_lossily() {
        let t = Text(vec![b'e', 0xff, b'0']);
        assert_eq!(t.as_str(), None);
        assert_eq!(t.to_string(), "e\u{fffd}0");
        assert_eq!(format!("{t:?}"), "Text([65, ff, 30])");
        assert_eq!(Text::from("eth0").as_str(), Some("eth0"));
    }
}
