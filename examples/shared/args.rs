//! Shared by the examples (each includes it with `#[path]`): reading the command line, so each
//! example's `args.rs` only says which options it has.

/// The arguments after the program's name, with the usage line to print on `--help` or on a
/// mistake.
pub struct Args {
    args: std::iter::Skip<std::env::Args>,
    usage: String,
}

impl Args {
    /// This process's arguments.
    pub fn new(usage: impl Into<String>) -> Self {
        Self {
            args: std::env::args().skip(1),
            usage: usage.into(),
        }
    }

    /// The next argument.
    pub fn next_arg(&mut self) -> Option<String> {
        self.args.next()
    }

    /// The value after option `name`, or an error naming it.
    pub fn value(&mut self, name: &str) -> Result<String, String> {
        self.args.next().ok_or(format!("{name} needs a value"))
    }

    /// The number after option `name`, or an error naming it.
    pub fn number<T: std::str::FromStr<Err: std::fmt::Display>>(
        &mut self,
        name: &str,
    ) -> Result<T, String> {
        self.value(name)?
            .parse()
            .map_err(|e| format!("{name}: {e}"))
    }

    /// What `--help` does: prints the usage and exits.
    pub fn help(&self) -> ! {
        println!("{}", self.usage);
        std::process::exit(0);
    }

    /// The error for an argument the example does not know.
    pub fn unknown(&self, arg: &str) -> String {
        format!("unknown argument {arg:?}\n{}", self.usage)
    }
}

/// The options `parsed` from the command line, or exits with status 2 and the error, which
/// `program` prefixes.
pub fn or_exit<T>(program: &str, parsed: Result<T, String>) -> T {
    parsed.unwrap_or_else(|message| {
        eprintln!("{program}: {message}");
        std::process::exit(2);
    })
}

/// A seed from the clock, for a new map each run (`--seed N` replays one); the multiplayer
/// example's server and client agree on a fixed seed instead.
#[allow(dead_code)]
pub fn seed_from_clock() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(1, |d| d.as_nanos() as u64 % 100_000)
}
