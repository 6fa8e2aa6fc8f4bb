//! Quoting for each language the output is written in. Names reach root shell scripts,
//! PowerShell sessions and switch CLIs; the loader refuses names a platform would not accept
//! (`rocelab_model::names`), and these functions are the second line: whatever a value holds, it
//! reaches the interpreter as one literal word. They back the template filters `sh`, `ps` and
//! `cli` ([`crate::templates`]) and the Rust code that formats commands (the runbook's checks).
//!
//! Each returns the value unchanged where it needs no quoting, so that ordinary names (`swp1`,
//! `eth1/1`, `node1`) render as they always have, and refuses control characters outright: a
//! newline would end a comment line or a command whatever the quoting, and no valid name has one.

/// Why a value cannot be written in a language.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unquotable(pub String);

impl std::fmt::Display for Unquotable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn no_control(value: &str, lang: &str) -> Result<(), Unquotable> {
    match value.chars().find(|c| c.is_control()) {
        Some(c) => Err(Unquotable(format!(
            "`{}` has the control character {c:?}, which rocelab does not write into {lang}",
            value.escape_debug()
        ))),
        None => Ok(()),
    }
}

/// Characters a POSIX shell word may have unquoted: none expands, splits, globs or redirects.
fn sh_plain(c: char) -> bool {
    c.is_ascii_alphanumeric() || "_@%+=:,./-".contains(c)
}

/// `value` as one POSIX shell word (bash, sh): bare when made only of characters that are
/// literal in a shell (`sh_plain`), else in single quotes, inside which nothing is special,
/// with each `'` written `'\''` (close, escaped quote, reopen; POSIX.1-2017 XCU 2.2.2-2.2.3).
pub fn sh(value: &str) -> Result<String, Unquotable> {
    no_control(value, "a shell script")?;
    if !value.is_empty() && value.chars().all(sh_plain) {
        return Ok(value.to_string());
    }
    Ok(format!("'{}'", value.replace('\'', r"'\''")))
}

/// `value` for the inside of a double-quoted shell string, and of the message of a
/// `"${VAR:?message}"` expansion there: `\`, `$`, `` ` ``, `"` and `}` each escaped with a
/// backslash (POSIX.1-2017 XCU 2.2.3: in double quotes the backslash keeps its escaping role
/// before `$`, `` ` ``, `"` and `\`; and 2.6.2: an escaped `}` does not end the expansion). For
/// the few places where a value sits in text already in double quotes (the runbook hint of a
/// missing variable, the default iSCSI name): a `sh`-quoted word there would be read with its
/// quotes and `$( )` inside it expanded.
pub fn sh_dq(value: &str) -> Result<String, Unquotable> {
    no_control(value, "a shell script")?;
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        if "\\$`\"}".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    Ok(out)
}

/// Characters PowerShell reads as a single quote (its tokenizer takes the typographic ones as
/// quotes too: U+2018, U+2019, U+201A, U+201B).
const PS_SINGLE: &[char] = &['\'', '\u{2018}', '\u{2019}', '\u{201A}', '\u{201B}'];

/// Characters that are literal inside a PowerShell double-quoted string: it expands `$` and
/// escapes with `` ` ``, and ends at `"` or a typographic double quote, none of which are here.
fn ps_plain(c: char) -> bool {
    c.is_ascii_alphanumeric() || " _.,:()#/+@=-".contains(c)
}

/// `value` as one PowerShell string literal. Plain values (adapter names such as `SLOT 2 Port 1`)
/// keep the double quotes the scripts have always had; any other is a single-quoted (verbatim)
/// string, inside which nothing expands, with each single-quote character doubled
/// (about_Quoting_Rules: "To include a single quotation mark in a single-quoted string, use a
/// second consecutive single quote").
pub fn ps(value: &str) -> Result<String, Unquotable> {
    no_control(value, "a PowerShell script")?;
    if value.chars().all(ps_plain) {
        return Ok(format!("\"{value}\""));
    }
    let mut out = String::with_capacity(value.len() + 2);
    out.push('\'');
    for c in value.chars() {
        if PS_SINGLE.contains(&c) {
            out.push(c);
        }
        out.push(c);
    }
    out.push('\'');
    Ok(out)
}

/// Characters a value written into a switch CLI may have: vendor CLIs have no quoting, and read
/// `!` and `#` as comments, `?` as a help request, `|` as an output pipe and `"` as a string.
fn cli_plain(c: char) -> bool {
    c.is_ascii_alphanumeric() || " _./:@+,=-()".contains(c)
}

/// `value` unchanged if a vendor CLI reads it as the text it is (`cli_plain`), else an error:
/// a switch CLI cannot quote, so a value outside that set cannot be written safely at all.
pub fn cli(value: &str) -> Result<String, Unquotable> {
    no_control(value, "a switch configuration")?;
    match value.chars().find(|&c| !cli_plain(c)) {
        Some(c) => Err(Unquotable(format!(
            "`{value}` has `{c}`, which a switch CLI does not read literally; rename it with letters, digits and - _ . / :"
        ))),
        None => Ok(value.to_string()),
    }
}

/// `value` unchanged for a comment line of any of the languages (`#`, `!`, `##`), which only a
/// line break ends: refused if it has a control character.
pub fn comment(value: &str) -> Result<String, Unquotable> {
    no_control(value, "a comment")?;
    Ok(value.to_string())
}

/// [`sh`] for Rust code that formats runbook commands: a value that cannot be quoted (a control
/// character, refused at load) is shown escaped and in quotes, which a shell reads literally.
pub fn sh_lossy(value: &str) -> String {
    sh(value).unwrap_or_else(|_| sh(&value.escape_debug().to_string()).unwrap_or_default())
}

/// [`sh_dq`] for Rust code, as [`sh_lossy`].
pub fn sh_dq_lossy(value: &str) -> String {
    sh_dq(value).unwrap_or_else(|_| sh_dq(&value.escape_debug().to_string()).unwrap_or_default())
}

/// [`ps`] for Rust code, as [`sh_lossy`].
pub fn ps_lossy(value: &str) -> String {
    ps(value).unwrap_or_else(|_| ps(&value.escape_debug().to_string()).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a hostile name may try: end the command, substitute one, expand a variable, break out
    /// of the quotes, or start a new line.
    const HOSTILE: &[&str] = &[
        "eth0;reboot",
        "h1$(reboot)",
        "a`reboot`",
        "a'b",
        "'; reboot; '",
        "a\"b",
        "x && rm -rf /",
        "$HOME",
        "a b",
        "*",
        "~root",
        "",
    ];

    #[test]
    fn sh_leaves_plain_words_alone() {
        for w in ["swp1", "eth1/49", "p0", "ct0.eth10", "node-1", "ethernet1/1/1:1", "/mnt/array1-rdma"] {
            assert_eq!(sh(w).unwrap(), w);
        }
    }

    #[test]
    fn sh_quotes_hostile_values_into_one_literal_word() {
        assert_eq!(sh("eth0;reboot").unwrap(), "'eth0;reboot'");
        assert_eq!(sh("h1$(reboot)").unwrap(), "'h1$(reboot)'");
        assert_eq!(sh("a`reboot`").unwrap(), "'a`reboot`'");
        assert_eq!(sh("a'b").unwrap(), r"'a'\''b'");
        assert_eq!(sh("").unwrap(), "''");
        for h in HOSTILE {
            let q = sh(h).unwrap();
            assert!(q.starts_with('\'') && q.ends_with('\''), "{h} -> {q}");
            // Outside the `'\''` sequences the quoted text holds no single quote.
            assert!(!q[1..q.len() - 1].replace(r"'\''", "").contains('\''), "{h} -> {q}");
        }
    }

    #[test]
    fn sh_quoting_is_read_back_by_a_shell_as_the_value() {
        let Ok(out) = std::process::Command::new("sh").arg("-c").arg("true").output() else { return };
        assert!(out.status.success());
        for h in HOSTILE {
            let script = format!("printf '%s' {}", sh(h).unwrap());
            let out = std::process::Command::new("sh").arg("-c").arg(&script).output().unwrap();
            assert_eq!(String::from_utf8_lossy(&out.stdout), *h, "{script}");
        }
    }

    #[test]
    fn sh_dq_escapes_what_double_quotes_expand() {
        assert_eq!(sh_dq("storage target `a1`").unwrap(), r"storage target \`a1\`");
        assert_eq!(sh_dq("$(reboot)}\"\\").unwrap(), r#"\$(reboot)\}\"\\"#);
        assert_eq!(sh_dq("node-1").unwrap(), "node-1");
        let Ok(out) = std::process::Command::new("sh").arg("-c").arg("true").output() else { return };
        assert!(out.status.success());
        for h in HOSTILE {
            let script = format!("unset V; echo \"${{V:-{}}}\"", sh_dq(h).unwrap());
            let out = std::process::Command::new("sh").arg("-c").arg(&script).output().unwrap();
            assert_eq!(String::from_utf8_lossy(&out.stdout), format!("{h}\n"), "{script}");
        }
    }

    #[test]
    fn control_characters_are_refused_in_every_language() {
        for bad in ["a\nreboot", "a\rb", "a\u{0}b", "a\u{1b}[2J"] {
            assert!(sh(bad).is_err(), "{bad:?}");
            assert!(sh_dq(bad).is_err(), "{bad:?}");
            assert!(ps(bad).is_err(), "{bad:?}");
            assert!(cli(bad).is_err(), "{bad:?}");
            assert!(comment(bad).is_err(), "{bad:?}");
        }
        assert!(sh("a\nb").unwrap_err().0.contains("control character"));
        assert_eq!(sh_lossy("a\nb"), r"'a\nb'");
    }

    #[test]
    fn ps_keeps_plain_names_double_quoted_and_makes_others_verbatim() {
        assert_eq!(ps("SLOT 2 Port 1").unwrap(), "\"SLOT 2 Port 1\"");
        assert_eq!(ps("vEthernet (SMB_1)").unwrap(), "\"vEthernet (SMB_1)\"");
        assert_eq!(ps("a$(Restart-Computer)").unwrap(), "'a$(Restart-Computer)'");
        assert_eq!(ps("a`b").unwrap(), "'a`b'");
        assert_eq!(ps("a\"b").unwrap(), "'a\"b'");
        assert_eq!(ps("it's").unwrap(), "'it''s'");
        assert_eq!(ps("a\u{2019}; x").unwrap(), "'a\u{2019}\u{2019}; x'");
        assert_eq!(ps("a;b").unwrap(), "'a;b'");
        for h in HOSTILE {
            let q = ps(h).unwrap();
            let quote = q.chars().next().unwrap();
            assert!(quote == '\'' || quote == '"', "{h} -> {q}");
            if quote == '"' {
                assert!(!q[1..q.len() - 1].contains(['$', '`', '"']), "{h} -> {q}");
            } else {
                let inner = &q[1..q.len() - 1];
                assert!(!inner.replace("''", "").contains('\''), "{h} -> {q}");
            }
        }
    }

    #[test]
    fn cli_passes_port_names_and_refuses_what_a_switch_would_act_on() {
        for w in
            ["Ethernet1/1", "TenGigabitEthernet 0/1", "ethernet1/1/1:1", "rocelab: to h1:p0", "h1:SLOT 2 Port 1 (x)"]
        {
            assert_eq!(cli(w).unwrap(), w);
        }
        for h in ["eth0;reboot", "a!b", "a#b", "a?", "a|b", "a\"b", "a'b", "h1$(reboot)", "a`b`", "a\\b"] {
            assert!(cli(h).is_err(), "{h}");
        }
    }
}
