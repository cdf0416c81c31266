//! The one error type for bad input: it names where (a key path such as `topology.k`, or a
//! file and line) and says what would be valid. The CLI prints it and exits with code 2.
//!
//! An error never echoes a whole input: [`ConfigError::new`] cuts every run of more than
//! [`QUOTE_MAX_CHARS`] characters without a space (a quoted name, a CSV cell, a line of a
//! file) to its first [`QUOTE_MAX_CHARS`] characters and an ellipsis, and every run of spaces
//! likewise, in the path and in the message, and cuts the middle of what is still longer than
//! [`MESSAGE_MAX_CHARS`]; so a 1 MB string in a scenario gives a message of a few hundred
//! characters that still says what is wrong and what would be valid.

use std::fmt;

/// The most characters of one unbroken run (a quoted input, a long line) an error shows.
pub const QUOTE_MAX_CHARS: usize = 200;
/// The most characters of a whole path or message: beyond, its middle is cut.
pub const MESSAGE_MAX_CHARS: usize = 2000;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    /// Where the problem is: a dotted key path (`workload.load`), or `file.csv line 7`.
    pub path: String,
    /// What is wrong and, where possible, what would be valid.
    pub message: String,
}

impl ConfigError {
    /// An error at `path`. Long runs of the path and the message are cut (module doc).
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> ConfigError {
        ConfigError {
            path: shorten(path.into()),
            message: shorten(message.into()),
        }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for ConfigError {}

/// Shorthand for results of parsing and validating input.
pub type ConfigResult<T> = Result<T, ConfigError>;

/// Turns any error that says what is wrong (such as a [`crate::units::RangeError`]) into a
/// [`ConfigError`] at a key path: `Time::try_from_us_f64(v).at_key("topology.link_delay_us")`.
pub trait AtKey<T> {
    fn at_key(self, path: impl Into<String>) -> ConfigResult<T>;
}

impl<T, E: fmt::Display> AtKey<T> for Result<T, E> {
    fn at_key(self, path: impl Into<String>) -> ConfigResult<T> {
        self.map_err(|e| ConfigError::new(path, e.to_string()))
    }
}

/// Reads a text file the scenario names (a flow list, a topology, a CDF). `key` is the key
/// that gave its path, for a file that cannot be read; `name` is how errors about its content
/// refer to it (`flows.csv`, as the scenario wrote it). Text that is not UTF-8 is refused
/// naming the line and the byte of the first bad byte, as every other error about a file's
/// content names its line.
pub fn read_text_file(path: &std::path::Path, key: &str, name: &str) -> ConfigResult<String> {
    let bytes = std::fs::read(path)
        .map_err(|e| ConfigError::new(key, format!("cannot read '{}': {e}", path.display())))?;
    String::from_utf8(bytes).map_err(|e| {
        let bytes = e.as_bytes();
        let bad = e.utf8_error().valid_up_to();
        let line = bytes[..bad].iter().filter(|&&b| b == b'\n').count() + 1;
        let line_start = bytes[..bad]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |p| p + 1);
        ConfigError::new(
            format!("{name} line {line}"),
            format!(
                "is not UTF-8 text: byte {} of the line is 0x{:02x}; save the file as UTF-8",
                bad - line_start + 1,
                bytes[bad]
            ),
        )
    })
}

/// Cuts every run of more than [`QUOTE_MAX_CHARS`] non-space characters, and every run of
/// more than [`QUOTE_MAX_CHARS`] spaces (a caret line under a long line), to that many
/// characters followed by `…`. Line breaks end a run and are kept.
fn shorten(s: String) -> String {
    if s.len() <= QUOTE_MAX_CHARS {
        return s; // no run can be longer than the string
    }
    let mut out = String::with_capacity(s.len().min(4 * QUOTE_MAX_CHARS));
    let mut run = 0usize; // characters of the current run kept so far
    let mut run_space: Option<bool> = None;
    let mut cut = false; // the rest of the current run is being dropped
    let mut changed = false;
    for c in s.chars() {
        let space = c.is_whitespace() && c != '\n';
        if c == '\n' || run_space != Some(space) {
            if cut {
                out.push('…');
                cut = false;
            }
            run = 0;
            run_space = (c != '\n').then_some(space);
        }
        if cut {
            continue;
        }
        if run == QUOTE_MAX_CHARS && c != '\n' {
            cut = true;
            changed = true;
            continue;
        }
        out.push(c);
        run += 1;
    }
    if cut {
        out.push('…');
    }
    let out = if changed { out } else { s };
    let n = out.chars().count();
    if n <= MESSAGE_MAX_CHARS {
        return out;
    }
    // Keep the start (what is wrong) and the end (often what would be valid).
    let head = MESSAGE_MAX_CHARS * 2 / 3;
    let tail = MESSAGE_MAX_CHARS - head;
    let mut cut_out: String = out.chars().take(head).collect();
    cut_out.push('…');
    cut_out.extend(out.chars().skip(n - tail));
    cut_out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_runs_are_cut_and_the_rest_is_kept() {
        let name = "x".repeat(1_000_000);
        let e = ConfigError::new(
            "topology.kind",
            format!("unknown topology '{name}'; expected one of star, dumbbell"),
        );
        assert!(e.message.len() < 300, "{} bytes", e.message.len());
        assert!(e.message.starts_with("unknown topology 'xxx"), "{e}");
        assert!(
            e.message.ends_with("x… expected one of star, dumbbell"),
            "{e}"
        );
        // The path too (an override without '=' is its own path).
        let e = ConfigError::new(name.clone(), "an override must look like key.path=value");
        assert_eq!(e.path.chars().count(), QUOTE_MAX_CHARS + 1);
        // A caret under column 1 000 000 and a line break survive as short lines.
        let caret = format!(
            "1 | v = {name}\n  | {}^\nexpected a value",
            " ".repeat(1_000_000)
        );
        let e = ConfigError::new("", caret);
        assert!(e.message.len() < 1000, "{}", e.message.len());
        assert!(e.message.ends_with("…^\nexpected a value"), "{}", e.message);
    }

    #[test]
    fn a_file_that_is_not_utf8_is_refused_at_its_line() {
        let dir = std::env::temp_dir().join(format!("dcnsim-utf8-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("flows.csv");
        std::fs::write(
            &path,
            b"src,dst,size_bytes,start_s\n0,1,1000,0\n0,1,\xff\xfe,0\n",
        )
        .unwrap();
        let e = read_text_file(&path, "workload.file", "flows.csv").unwrap_err();
        assert_eq!(e.path, "flows.csv line 3");
        assert!(e.message.contains("byte 5 of the line is 0xff"), "{e}");
        std::fs::write(&path, "héllo\n").unwrap();
        assert_eq!(read_text_file(&path, "k", "n").unwrap(), "héllo\n");
        let e = read_text_file(&dir.join("missing.csv"), "workload.file", "missing.csv");
        assert_eq!(e.unwrap_err().path, "workload.file");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn short_messages_are_untouched() {
        let m = "must be a finite number, got nan".to_string();
        assert_eq!(ConfigError::new("workload.load", m.clone()).message, m);
        let exactly = "y".repeat(QUOTE_MAX_CHARS);
        let long = format!("{exactly} and more words after it, {}", "z ".repeat(200));
        assert_eq!(ConfigError::new("", long.clone()).message, long);
    }

    #[test]
    fn many_short_words_are_cut_in_the_middle() {
        let words = "ab ".repeat(100_000);
        let e = ConfigError::new("", format!("start {words} end"));
        assert!(
            e.message.chars().count() <= MESSAGE_MAX_CHARS + 1,
            "{}",
            e.message.len()
        );
        assert!(e.message.starts_with("start ab"), "{}", e.message);
        assert!(e.message.ends_with("ab  end"), "{}", e.message);
        assert!(e.message.contains('…'));
    }
}
