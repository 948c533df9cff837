//! `vodbench completions SHELL`: a completion script for bash, zsh, fish, elvish or
//! PowerShell (clap_complete), printed to standard output, as ripgrep, fd and hyperfine ship
//! them. Every subcommand, flag and enumerated value completes; file arguments complete as
//! paths.

use super::CommandError;
use clap::CommandFactory;
use clap_complete::Shell;
use std::io::Write;

/// Arguments of `vodbench completions`.
#[derive(clap::Args)]
pub(crate) struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    shell: Shell,
}

/// The completion script of `vodbench` for `shell`.
pub fn script(shell: Shell) -> Vec<u8> {
    let mut cmd = super::Cli::command();
    let name = cmd.get_name().to_string();
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut cmd, name, &mut out);
    out
}

/// `vodbench completions SHELL`.
pub(crate) fn cmd(args: CompletionsArgs) -> Result<(), CommandError> {
    std::io::stdout()
        .write_all(&script(args.shell))
        .map_err(|e| CommandError::failure(format!("standard output: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::ValueEnum;

    #[test]
    fn every_shell_gets_a_script_naming_every_subcommand() {
        let subcommands: Vec<String> = super::super::Cli::command()
            .get_subcommands()
            .map(|c| c.get_name().to_string())
            .collect();
        assert!(subcommands.iter().any(|s| s == "run"));
        for shell in Shell::value_variants() {
            let text = String::from_utf8(script(*shell)).expect("UTF-8");
            assert!(text.contains("vodbench"), "{shell}: names no vodbench");
            for sub in &subcommands {
                assert!(text.contains(sub.as_str()), "{shell}: no `{sub}`");
            }
        }
    }
}
