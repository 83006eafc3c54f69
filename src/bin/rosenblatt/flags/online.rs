//! The flags of a filter that starts empty under the TREC online protocol (`eval --online`
//! without `--model`): its update rule and its constants, named as `train` names its
//! learners, and how it reads mail (tokens, hashing, row length). A filter read from a
//! model file learns by the rule and reads mail by the analyzer it records instead.

use super::features::FeatureArgs;
use super::geometry::NormalizeArg;
use super::mail_fields::MailFieldArgs;
use anyhow::{Result, bail};
use clap::{Args, ValueEnum};
use rosenblatt::features::Geometry;
use rosenblatt::incremental::OnlineFilter;
use rosenblatt::learn::{MarginPerceptron, PassiveAggressive, Rate, UpdateRule};
use rosenblatt::text::Source;
use std::path::Path;

/// The update rules a filter can learn by, as `--learner` names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RuleArg {
    /// Add y·x on a mistake (y·s ≤ 0).
    Perceptron,
    /// The thick-threshold perceptron: add y·x whenever y·s ≤ τ (--margin).
    MarginPerceptron,
    /// Passive-Aggressive PA-I: the smallest step to margin 1, at most C (--pa-c).
    Pa,
    /// Online logistic regression: a gradient step after every message (--eta, --rate).
    Logistic,
}

/// `--rate`'s values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RateArg {
    /// η on every message.
    Constant,
    /// η/√(1 + t) after t messages.
    Decaying,
    /// Per feature η/√G, G the feature's sum of squared gradients (AdaGrad).
    Adagrad,
}

/// How an empty filter learns and reads mail under `eval --online`.
#[derive(Debug, Args, Clone)]
#[command(next_help_heading = "Learner")]
pub struct OnlineArgs {
    /// With --online and no --model: the filter's update rule. The default filter is
    /// online logistic regression (AdaGrad, η 1) on words and word pairs of the header
    /// fields and the body's first 1000 bytes (--truncate), hashed into 2^22 ids, rows
    /// of unit length [default: logistic].
    #[arg(long = "learner", value_enum, value_name = "RULE")]
    pub rule: Option<RuleArg>,
    /// The margin perceptron's threshold τ [default: 1].
    #[arg(long, allow_negative_numbers = true)]
    pub margin: Option<f32>,
    /// PA-I's aggressiveness C [default: 1].
    #[arg(long = "pa-c", allow_negative_numbers = true)]
    pub pa_c: Option<f32>,
    /// Online logistic regression's step size η [default: 1].
    #[arg(long, allow_negative_numbers = true)]
    pub eta: Option<f32>,
    /// How online logistic regression's step changes [default: adagrad].
    #[arg(long, value_enum)]
    pub rate: Option<RateArg>,
    /// The score above which a message is spam, recorded in the filter. A logistic
    /// filter's score is the log-odds ln(p/(1−p)) of spam: the default ln 9 ≈ 2.197 calls
    /// a message spam when P(spam) > 0.9, as a lost wanted message costs more than a spam
    /// let through; 0 calls it spam when P(spam) > 0.5. The other rules' scores are not
    /// probabilities [default: ln 9 for logistic, 0 for the others].
    #[arg(long, allow_negative_numbers = true, value_name = "SCORE")]
    pub threshold: Option<f32>,
    /// Row normalization: l2 scales every message to length 1 [default: l2].
    #[arg(long, value_enum, help_heading = "Features")]
    pub normalize: Option<NormalizeArg>,
    #[command(flatten)]
    pub features: FeatureArgs,
}

impl OnlineArgs {
    /// Whether any of them was given.
    pub fn is_set(&self) -> bool {
        self.threshold.is_some() || self.is_set_without_threshold()
    }

    /// Whether any of them but `--threshold` was given.
    pub fn is_set_without_threshold(&self) -> bool {
        self.rule.is_some()
            || self.margin.is_some()
            || self.pa_c.is_some()
            || self.eta.is_some()
            || self.rate.is_some()
            || self.normalize.is_some()
            || self.features.is_set()
    }

    /// The rule they ask for, checked: each constant belongs to its rule.
    pub fn rule(&self) -> Result<UpdateRule> {
        let default = OnlineFilter::default().rule;
        let rule = match self.rule {
            None => default,
            Some(RuleArg::Perceptron) => UpdateRule::Perceptron,
            Some(RuleArg::MarginPerceptron) => UpdateRule::Margin {
                tau: self.margin.unwrap_or(MarginPerceptron::default().tau),
            },
            Some(RuleArg::Pa) => UpdateRule::PassiveAggressive {
                c: self.pa_c.unwrap_or(PassiveAggressive::default().c),
            },
            Some(RuleArg::Logistic) => OnlineFilter::LOGISTIC,
        };
        let rule = match rule {
            UpdateRule::Logistic { eta, rate } => UpdateRule::Logistic {
                eta: self.eta.unwrap_or(eta),
                rate: match self.rate {
                    None => rate,
                    Some(RateArg::Constant) => Rate::Constant,
                    Some(RateArg::Decaying) => Rate::Decaying,
                    Some(RateArg::Adagrad) => Rate::AdaGrad,
                },
            },
            r => r,
        };
        let is = |r: &str| rule.name() == r;
        for (given, flag, owner) in [
            (self.margin.is_some(), "--margin", "margin-perceptron"),
            (self.pa_c.is_some(), "--pa-c", "pa"),
            (self.eta.is_some(), "--eta", "logistic"),
            (self.rate.is_some(), "--rate", "logistic"),
        ] {
            if given && !is(owner) {
                bail!(
                    "{flag} belongs to --learner {owner}; this filter learns by {}",
                    rule.name()
                );
            }
        }
        rule.validate()?;
        Ok(rule)
    }

    /// The empty filter they describe, reading mail as `fields` say (`model`: the filter
    /// given instead, which refuses those flags).
    pub fn filter(&self, fields: &MailFieldArgs, model: Option<&Path>) -> Result<OnlineFilter> {
        let default = OnlineFilter::default();
        let rules = default
            .analyzer
            .source()
            .mail_rules()
            .expect("the default filter reads mail");
        let rules = fields.rules_for_new(model, rules)?;
        let analyzer = self
            .features
            .analyzer(&default.analyzer)?
            .with_source(Source::Mail(rules));
        let geometry = self
            .normalize
            .map_or(default.geometry, |n| Geometry::binary(n.into()));
        let rule = self.rule()?;
        let threshold = match self.threshold {
            Some(t) if !t.is_finite() => bail!("--threshold must be a number, got {t}"),
            Some(t) => t,
            None => OnlineFilter::threshold_for(rule),
        };
        Ok(OnlineFilter {
            analyzer,
            geometry,
            rule,
            threshold,
        })
    }
}
