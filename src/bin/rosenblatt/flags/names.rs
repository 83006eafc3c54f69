//! The command line's names for library values: the spelling and `--help` text of every
//! value enum the flags take (mirrors of the library's enums, which know nothing of the
//! command line), memory sizes such as `512M`, and the flag that sets each library
//! parameter, so that a library error about `eta` reads as one about `--eta`; and the
//! parser of every whole-number flag.

use clap::ValueEnum;
use clap::builder::{EnumValueParser, TypedValueParser};
use clap::error::ErrorKind;
use rosenblatt::error::{ConfigError, Param};
use rosenblatt::input::{Format, Split};
use rosenblatt::learn::{Averaging, Bias, RateSchedule};
use std::ffi::OsStr;

/// Declares a command-line mirror of a library enum (same variants, in the same order)
/// with conversions both ways.
macro_rules! mirror {
    ($(#[$m:meta])* $name:ident => $lib:ty { $($(#[$vm:meta])* $v:ident),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
        pub enum $name {
            $($(#[$vm])* $v),+
        }

        impl From<$name> for $lib {
            fn from(n: $name) -> Self {
                match n {
                    $($name::$v => <$lib>::$v),+
                }
            }
        }

        impl From<$lib> for $name {
            fn from(l: $lib) -> Self {
                match l {
                    $(<$lib>::$v => $name::$v),+
                }
            }
        }
    };
}

mirror! {
    /// The input formats `--format` accepts.
    FormatName => Format {
        #[doc = "Class folders: DIR/<class>/<files>, the folder name is the label."] Dir,
        #[doc = "Each file (or each file under a folder) is one unlabelled document."] Text,
        #[doc = r#"One {"label": …, "text": …} object per line ("labels": [...] for several)."#]
        Jsonl,
        #[doc = "label<TAB>text lines."] Tsv,
        #[doc = "Reuters-21578 SGML, the ModApte documents of 90 categories (see --split)."]
        Reuters,
        #[doc = "SVMlight vectors (label id:value …); default for .svm, .svmlight, .libsvm."]
        Svmlight,
    }
}

mirror! {
    /// The parts `--split` accepts.
    SplitName => Split {
        /// The training part (ModApte: `LEWISSPLIT="TRAIN"`).
        Train,
        /// The test part (ModApte: `LEWISSPLIT="TEST"`).
        Test,
    }
}

mirror! {
    /// The bias rules `--bias` accepts.
    BiasName => Bias {
        /// No bias: h(x) = sgn(w·x).
        None,
        /// A constant feature 1 appended to every x: b ← b + η·y.
        Augmented,
        /// The R² step: b ← b + η·y·R², R = max‖xᵢ‖.
        R2,
    }
}

mirror! {
    /// The hypotheses `--averaging` accepts.
    AveragingName => Averaging {
        /// The last vector: cᵢ = αᵢ yᵢ.
        None,
        /// The average of the vectors after every step (the averaged perceptron).
        Averaged,
        /// Each vector votes sgn(v·x) weighted by how many steps it survived (Freund and
        /// Schapire's voted perceptron).
        Voted,
    }
}

mirror! {
    /// The learning-rate schedules `--lr-schedule` accepts.
    RateScheduleName => RateSchedule {
        /// η = η₀.
        Constant,
        /// η = η₀ / √(1 + e).
        InverseSqrt,
        /// η = η₀ / (1 + e).
        Inverse,
    }
}

/// When `--progress` shows progress on stderr.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Progress {
    /// A spinner when stderr is a terminal, nothing otherwise.
    Auto,
    /// A spinner on a terminal, plain lines otherwise (a log, a pipe).
    Always,
    /// Nothing.
    Never,
}

/// Parses `--format NAME` straight into the library's [`Format`].
pub fn format() -> impl TypedValueParser<Value = Format> {
    EnumValueParser::<FormatName>::new().map(Format::from)
}

/// Parses `--split NAME` straight into the library's [`Split`].
pub fn split() -> impl TypedValueParser<Value = Split> {
    EnumValueParser::<SplitName>::new().map(Split::from)
}

/// The whole-number types a flag can hold.
pub trait WholeNumber: Copy + Send + Sync + std::fmt::Display + TryFrom<u128> + 'static {
    /// The largest value of the type.
    const MAX: Self;
}

macro_rules! whole_number {
    ($($t:ty),+) => {$(
        impl WholeNumber for $t {
            const MAX: Self = <$t>::MAX;
        }
    )+};
}
whole_number!(u8, u16, u32, u64, usize);

/// The parser of a whole-number flag: `-1`, `2.5` or `ten` become a sentence naming the
/// flag ("--epochs must be a whole number of at least 1, got -1") instead of clap's
/// "unexpected argument". The flag takes `allow_negative_numbers = true`, so that `-1`
/// reaches the parser rather than being read as a flag. `min` is the least value the
/// flag accepts, as the sentence states it; values from 0 to `min` pass and meet the
/// flag's own rule, which says why they are refused.
#[derive(Debug, Clone, Copy)]
pub struct Whole<T> {
    min: T,
}

/// A [`Whole`] parser for a flag whose least useful value is `min`.
pub fn whole<T: WholeNumber>(min: T) -> Whole<T> {
    Whole { min }
}

impl<T: WholeNumber> Whole<T> {
    /// The value of `text`, or what is wrong with it as the end of a sentence.
    fn value(&self, text: &str) -> Result<T, String> {
        let range = format!("a whole number of at least {}", self.min);
        let text = if text.is_empty() { "nothing" } else { text };
        let digits = text.strip_prefix('+').unwrap_or(text);
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(format!("must be {range}, got {text}"));
        }
        digits
            .parse::<u128>()
            .ok()
            .and_then(|v| T::try_from(v).ok())
            .ok_or_else(|| format!("must be {range} and at most {}, got {text}", T::MAX))
    }
}

impl<T: WholeNumber> TypedValueParser for Whole<T> {
    type Value = T;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<T, clap::Error> {
        let name = arg.map_or("the value".to_string(), |a| match a.get_long() {
            Some(long) => format!("--{long}"),
            None => a.get_id().to_string(),
        });
        let text = value.to_string_lossy();
        self.value(&text).map_err(|why| {
            cmd.clone()
                .error(ErrorKind::ValueValidation, format!("{name} {why}"))
        })
    }
}

/// Parses a memory size such as `512M`, `2G`, `1.5GiB` or `1000000` (bytes), for
/// `--memory`.
pub fn parse_memory(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let v: f64 = num
        .parse()
        .map_err(|_| format!("{s:?} is not a size (e.g. 512M, 2G)"))?;
    let mult: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        "t" | "tb" | "tib" => 1 << 40,
        other => return Err(format!("{s:?}: unknown unit {other:?} (use K, M, G or T)")),
    };
    let bytes = v * mult as f64;
    if !(bytes.is_finite() && bytes >= 1.0) {
        return Err(format!("{s:?} is not a positive size"));
    }
    Ok(bytes as u64)
}

/// The flag that sets a library parameter (`None`: no flag sets it).
pub fn flag(param: Param) -> Option<&'static str> {
    Some(match param {
        Param::Learner => "--learner",
        Param::Bias => "--bias",
        Param::Schedule => "--mode",
        Param::Shuffle => "--no-shuffle",
        Param::Average => "--average/--no-average",
        Param::Solver => "--solver",
        Param::RateSchedule => "--lr-schedule",
        Param::Kernel => "--kernel",
        Param::Averaging => "--averaging",
        Param::Force => "--force",
        Param::Eta => "--eta",
        Param::Epochs => "--epochs",
        Param::Rounds => "--rounds",
        Param::Patience => "--patience",
        Param::PositiveWeight => "--positive-weight",
        Param::Tau | Param::Margin => "--margin",
        Param::C => "--pa-c",
        Param::Alpha => "--alpha",
        Param::L2 => "--l2",
        Param::BatchSize => "--batch-size",
        Param::EarlyStopFraction => "--early-stop",
        Param::EarlyStopPatience => "--early-stop-patience",
        Param::Degree => "--degree",
        Param::Coef0 => "--coef0",
        Param::Gamma => "--gamma",
        Param::Memory => "--memory",
        Param::MaxSeconds => return None,
        Param::MinDf => "--min-df",
        Param::MaxFeatures => "--max-features",
        Param::Positive => "--positive",
        Param::ThresholdFolds => "--threshold-folds",
        Param::Folds => "--cv",
        Param::HoldoutFraction => "--holdout",
    })
}

/// A configuration error with its parameter under the flag's name.
fn config_message(c: &ConfigError) -> String {
    let name = flag(c.param).unwrap_or(c.param.name());
    format!("invalid configuration: {}", c.message_naming(name))
}

/// An error as the command line shows it: each cause in turn, as `{:#}` prints them, with
/// library parameters named by their flags.
pub fn message(e: &anyhow::Error) -> String {
    let parts: Vec<String> = e
        .chain()
        .map(|cause| {
            if let Some(c) = cause.downcast_ref::<ConfigError>() {
                return config_message(c);
            }
            match cause.downcast_ref::<rosenblatt::Error>() {
                Some(rosenblatt::Error::Config(c)) => config_message(c),
                Some(rosenblatt::Error::OverBudget(b)) => format!(
                    "{b}. Use the primal form (--learner perceptron), a smaller sample, a \
                     larger --memory, or --force to run it anyway"
                ),
                _ => cause.to_string(),
            }
        })
        .collect();
    parts.join(": ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_numbers_parse_and_others_are_sentences() {
        let epochs = whole(1usize);
        assert_eq!(epochs.value("7"), Ok(7));
        assert_eq!(epochs.value("+7"), Ok(7));
        assert_eq!(epochs.value("0"), Ok(0));
        assert_eq!(
            epochs.value("-1"),
            Err("must be a whole number of at least 1, got -1".into())
        );
        assert_eq!(
            epochs.value("2.5"),
            Err("must be a whole number of at least 1, got 2.5".into())
        );
        assert_eq!(
            epochs.value(""),
            Err("must be a whole number of at least 1, got nothing".into())
        );
        assert_eq!(
            whole(1u32).value("4294967296"),
            Err(
                "must be a whole number of at least 1 and at most 4294967295, got 4294967296"
                    .into()
            )
        );
        assert_eq!(whole(0u8).value("255"), Ok(255));
    }

    #[test]
    fn memory_sizes_parse() {
        assert_eq!(parse_memory("512M"), Ok(512 << 20));
        assert_eq!(parse_memory("1.5GiB"), Ok(3 << 29));
        assert_eq!(parse_memory("1000"), Ok(1000));
        assert!(parse_memory("lots").is_err());
        assert!(parse_memory("5X").is_err());
        assert!(parse_memory("0").is_err());
    }

    #[test]
    fn library_errors_name_flags() {
        let eta = ConfigError::new(Param::Eta, 0, "must be a positive number");
        let e = anyhow::Error::new(rosenblatt::Error::from(eta.clone())).context("training");
        assert_eq!(
            message(&e),
            "training: invalid configuration: the learning rate (--eta) must be a positive \
             number, got 0"
        );
        assert_eq!(
            message(&anyhow::Error::new(eta)),
            "invalid configuration: the learning rate (--eta) must be a positive number, got 0"
        );
        let max = ConfigError::new(Param::MaxSeconds, 0, "must be positive");
        assert!(message(&max.into()).contains("(max_seconds)"));
        let other = anyhow::anyhow!("plain");
        assert_eq!(message(&other), format!("{other:#}"));
    }

    #[test]
    fn mirrors_convert_both_ways() {
        for n in FormatName::value_variants() {
            assert_eq!(FormatName::from(Format::from(*n)), *n);
        }
        for n in BiasName::value_variants() {
            assert_eq!(BiasName::from(Bias::from(*n)), *n);
        }
        assert_eq!(Split::from(SplitName::Test), Split::Test);
        assert_eq!(Averaging::from(AveragingName::Voted), Averaging::Voted);
        assert_eq!(
            RateSchedule::from(RateScheduleName::InverseSqrt),
            RateSchedule::InverseSqrt
        );
    }
}
