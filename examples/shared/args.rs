//! Shared by the examples (each includes it with `#[path]`): reading the command line, so each
//! example's `args.rs` only says which options it has.

/// The arguments after the program's name, with the usage line to print on `--help` or on a
/// mistake.
pub struct Args {
    args: std::vec::IntoIter<String>,
    usage: String,
}

impl Args {
    /// This process's arguments; in a browser, which has no command line, the page address's
    /// query instead (see `web_args`).
    pub fn new(usage: impl Into<String>) -> Self {
        #[cfg(not(target_arch = "wasm32"))]
        let args = std::env::args().skip(1).collect::<Vec<_>>();
        #[cfg(target_arch = "wasm32")]
        let args = web_args();
        Self {
            args: args.into_iter(),
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

    /// What `--help` does: prints the usage and exits (in a browser, which a program cannot
    /// leave, it stops with the usage as its error, which the page shows).
    pub fn help(&self) -> ! {
        #[cfg(target_arch = "wasm32")]
        web_sys::wasm_bindgen::throw_str(&self.usage);
        #[cfg(not(target_arch = "wasm32"))]
        {
            println!("{}", self.usage);
            std::process::exit(0);
        }
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
        // A browser has no exit status: the error is thrown to the page, which shows it (a
        // panic this early, before Bevy's panic hook, would only say "unreachable").
        #[cfg(target_arch = "wasm32")]
        web_sys::wasm_bindgen::throw_str(&format!("{program}: {message}"));
        #[cfg(not(target_arch = "wasm32"))]
        {
            eprintln!("{program}: {message}");
            std::process::exit(2);
        }
    })
}

/// A seed from the clock, for a new map each run (`--seed N` replays one); the multiplayer
/// example's server and client agree on a fixed seed instead.
#[allow(dead_code)]
pub fn seed_from_clock() -> u64 {
    // `std::time::SystemTime::now` panics in a browser: there the clock is JavaScript's.
    #[cfg(target_arch = "wasm32")]
    let nanos = (web_sys::js_sys::Date::now() * 1e6) as u128;
    #[cfg(not(target_arch = "wasm32"))]
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(1, |d| d.as_nanos());
    nanos as u64 % 100_000
}

/// In a browser, the options from the page address's query, each `name=value` or `name` an
/// option `--name` (followed by its value): `index.html?seed=42&fog=tiles&monster-views`
/// is `--seed 42 --fog tiles --monster-views`.
#[cfg(target_arch = "wasm32")]
fn web_args() -> Vec<String> {
    let query = web_sys::window()
        .and_then(|window| window.location().search().ok())
        .unwrap_or_default();
    let mut args = Vec::new();
    for pair in query
        .trim_start_matches('?')
        .split('&')
        .filter(|p| !p.is_empty())
    {
        let decode = |text: &str| {
            web_sys::js_sys::decode_uri_component(&text.replace('+', " "))
                .map_or_else(|_| text.to_owned(), String::from)
        };
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        args.push(format!("--{}", decode(name)));
        if !value.is_empty() {
            args.push(decode(value));
        }
    }
    args
}
