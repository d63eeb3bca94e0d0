//! `report.json`'s schema: the serde types of the file, apart from the report model
//! (`report/mod.rs`, `replay.rs`) that the checks fill and the printers read.
//!
//! Every check writes `report.json` through [`render`]; `xcheck merge` (`shards/`), the
//! `xcheck lib` cache, the suite and native replay read it back through [`parse`]. The
//! types here are the file's shape and nothing else: field names are the JSON keys, in the
//! order they are written; enum values are snake case (`error_one`, `inconclusive`); a
//! replay's answer is `true`, `false` or `null`, the native one absent when not run; a row's
//! third side names the odd one out. The model's types carry no serde traits (tidy), so a
//! change of the model does not change the file unless a conversion here says so.
//! `suite.json` and the gate's `shard.json` embed a verdict and a shard's description in
//! this shape ([`overall_opt`], [`shard_info`]).

use super as model;
use serde::{Deserialize, Serialize};

/// Renders `report` as `report.json` holds it: pretty-printed (`pretty`) or compact, no
/// final newline.
pub fn render(report: &model::Report, pretty: bool) -> serde_json::Result<String> {
    let record = Report::from(report);
    if pretty {
        serde_json::to_string_pretty(&record)
    } else {
        serde_json::to_string(&record)
    }
}

/// Reads a report from the text of a `report.json`.
pub fn parse(text: &str) -> serde_json::Result<model::Report> {
    serde_json::from_str::<Report>(text).map(model::Report::from)
}

/// Reads a report from the bytes of a `report.json`.
pub fn parse_bytes(bytes: &[u8]) -> serde_json::Result<model::Report> {
    serde_json::from_slice::<Report>(bytes).map(model::Report::from)
}

/// A verdict's name in the files (`error_one`): `report.json`, `report.csv`, the page's
/// classes.
pub fn verdict_name(verdict: &model::PathVerdict) -> &'static str {
    PathVerdict::from(verdict).name()
}

/// `report.json`: the summary and every row.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Report {
    pub summary: Summary,
    pub rows: Vec<PathRow>,
}

/// A path's verdict.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum PathVerdict {
    Proved,
    Diverged,
    ErrorBoth,
    ErrorOne,
    Unknown,
}

impl PathVerdict {
    /// The name serde writes.
    pub fn name(self) -> &'static str {
        match self {
            PathVerdict::Proved => "proved",
            PathVerdict::Diverged => "diverged",
            PathVerdict::ErrorBoth => "error_both",
            PathVerdict::ErrorOne => "error_one",
            PathVerdict::Unknown => "unknown",
        }
    }
}

/// The run's verdict.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Overall {
    Equivalent,
    Diverged,
    Inconclusive,
}

/// Which of three sides agree, in words.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub enum Agreement {
    #[serde(rename = "all agree")]
    AllAgree,
    #[serde(rename = "A differs")]
    ADiffers,
    #[serde(rename = "B differs")]
    BDiffers,
    #[serde(rename = "C differs")]
    CDiffers,
    #[serde(rename = "all differ")]
    AllDiffer,
}

/// One concrete input of a row.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct InputValue {
    pub name: String,
    pub bytes: Vec<u8>,
    pub display: String,
}

/// One row (`model::PathRow`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct PathRow {
    pub id: usize,
    pub verdict: PathVerdict,
    pub merged_paths: u64,
    pub inputs: Vec<InputValue>,
    pub result_a: String,
    pub result_b: String,
    pub detail: String,
    pub ktest: Option<String>,
    /// Concrete replay: `null` when not run.
    pub confirmed: Option<bool>,
    /// Native replay: absent when not run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub native: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parts_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub three: Option<ThreeWay>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undefined: Option<String>,
}

/// A row's third side; `odd` follows from the agreement (written, not read).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct ThreeWay {
    pub result_c: String,
    pub agreement: Agreement,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub odd: Option<String>,
}

/// How often one side of a three-way check was the odd one out.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct OddOneOut {
    pub side: String,
    pub program: String,
    pub paths: usize,
}

/// The run's totals and settings (`model::Summary` without its coverage and routes, which
/// only `report.html` shows).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Summary {
    pub title: String,
    pub overall: Overall,
    pub complete: bool,
    pub paths: usize,
    pub proved: usize,
    pub diverged: usize,
    pub errors_both: usize,
    pub errors_one: usize,
    pub unconfirmed: usize,
    pub not_replayed: usize,
    pub unknown: usize,
    pub instructions: u64,
    pub queries: u64,
    pub solver_time_ms: u64,
    pub wall_time_ms: u64,
    pub stop_reason: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub assumptions: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proof: Option<String>,
    pub notes: Vec<String>,
    /// `[name, count]` pairs.
    pub counters: Vec<(String, u64)>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<ShardInfo>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub classes: Vec<DivergenceClass>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub odd_one_out: Vec<OddOneOut>,
}

/// A shard's part of a sharded run.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct ShardInfo {
    pub index: u32,
    pub count: u32,
    pub checks: bool,
    pub frontier: usize,
    pub digest: String,
}

/// One kind of difference and its rows.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct DivergenceClass {
    pub class: String,
    pub rows: usize,
    pub confirmed: usize,
    pub example: usize,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub partings: Vec<Parting>,
}

/// A branch where rows of a kind leave agreement.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Parting {
    pub at: String,
    pub rows: usize,
}

// ---- The model to the file.

impl From<&model::PathVerdict> for PathVerdict {
    fn from(v: &model::PathVerdict) -> Self {
        match v {
            model::PathVerdict::Proved => PathVerdict::Proved,
            model::PathVerdict::Diverged => PathVerdict::Diverged,
            model::PathVerdict::ErrorBoth => PathVerdict::ErrorBoth,
            model::PathVerdict::ErrorOne => PathVerdict::ErrorOne,
            model::PathVerdict::Unknown => PathVerdict::Unknown,
        }
    }
}

impl From<model::Overall> for Overall {
    fn from(o: model::Overall) -> Self {
        match o {
            model::Overall::Equivalent => Overall::Equivalent,
            model::Overall::Diverged => Overall::Diverged,
            model::Overall::Inconclusive => Overall::Inconclusive,
        }
    }
}

impl From<model::Agreement> for Agreement {
    fn from(a: model::Agreement) -> Self {
        match a {
            model::Agreement::AllAgree => Agreement::AllAgree,
            model::Agreement::ADiffers => Agreement::ADiffers,
            model::Agreement::BDiffers => Agreement::BDiffers,
            model::Agreement::CDiffers => Agreement::CDiffers,
            model::Agreement::AllDiffer => Agreement::AllDiffer,
        }
    }
}

impl From<&model::InputValue> for InputValue {
    fn from(i: &model::InputValue) -> Self {
        InputValue {
            name: i.name.clone(),
            bytes: i.bytes.clone(),
            display: i.display.clone(),
        }
    }
}

impl From<&model::ThreeWay> for ThreeWay {
    fn from(t: &model::ThreeWay) -> Self {
        ThreeWay {
            result_c: t.result_c.clone(),
            agreement: t.agreement.into(),
            odd: t.odd().map(String::from),
        }
    }
}

impl From<&model::PathRow> for PathRow {
    fn from(r: &model::PathRow) -> Self {
        PathRow {
            id: r.id,
            verdict: (&r.verdict).into(),
            merged_paths: r.merged_paths,
            inputs: r.inputs.iter().map(InputValue::from).collect(),
            result_a: r.result_a.clone(),
            result_b: r.result_b.clone(),
            detail: r.detail.clone(),
            ktest: r.ktest.clone(),
            confirmed: r.confirmed.as_bool(),
            native: r.native.as_bool(),
            path: r.path.clone(),
            class: r.class.clone(),
            parts_at: r.parts_at.clone(),
            three: r.three.as_ref().map(ThreeWay::from),
            undefined: r.undefined.clone(),
        }
    }
}

impl From<&model::OddOneOut> for OddOneOut {
    fn from(o: &model::OddOneOut) -> Self {
        OddOneOut {
            side: o.side.clone(),
            program: o.program.clone(),
            paths: o.paths,
        }
    }
}

impl From<&model::ShardInfo> for ShardInfo {
    fn from(s: &model::ShardInfo) -> Self {
        ShardInfo {
            index: s.index,
            count: s.count,
            checks: s.checks,
            frontier: s.frontier,
            digest: s.digest.clone(),
        }
    }
}

impl From<&model::Parting> for Parting {
    fn from(p: &model::Parting) -> Self {
        Parting {
            at: p.at.clone(),
            rows: p.rows,
        }
    }
}

impl From<&model::DivergenceClass> for DivergenceClass {
    fn from(c: &model::DivergenceClass) -> Self {
        DivergenceClass {
            class: c.class.clone(),
            rows: c.rows,
            confirmed: c.confirmed,
            example: c.example,
            partings: c.partings.iter().map(Parting::from).collect(),
        }
    }
}

impl From<&model::Summary> for Summary {
    fn from(s: &model::Summary) -> Self {
        Summary {
            title: s.title.clone(),
            overall: s.overall.into(),
            complete: s.complete,
            paths: s.paths,
            proved: s.proved,
            diverged: s.diverged,
            errors_both: s.errors_both,
            errors_one: s.errors_one,
            unconfirmed: s.unconfirmed,
            not_replayed: s.not_replayed,
            unknown: s.unknown,
            instructions: s.instructions,
            queries: s.queries,
            solver_time_ms: s.solver_time_ms,
            wall_time_ms: s.wall_time_ms,
            stop_reason: s.stop_reason.clone(),
            assumptions: s.assumptions.clone(),
            proof: s.proof.clone(),
            notes: s.notes.clone(),
            counters: s.counters.clone(),
            shard: s.shard.as_ref().map(ShardInfo::from),
            classes: s.classes.iter().map(DivergenceClass::from).collect(),
            odd_one_out: s.odd_one_out.iter().map(OddOneOut::from).collect(),
        }
    }
}

impl From<&model::Report> for Report {
    fn from(r: &model::Report) -> Self {
        Report {
            summary: (&r.summary).into(),
            rows: r.rows.iter().map(PathRow::from).collect(),
        }
    }
}

// ---- The file to the model.

impl From<PathVerdict> for model::PathVerdict {
    fn from(v: PathVerdict) -> Self {
        match v {
            PathVerdict::Proved => model::PathVerdict::Proved,
            PathVerdict::Diverged => model::PathVerdict::Diverged,
            PathVerdict::ErrorBoth => model::PathVerdict::ErrorBoth,
            PathVerdict::ErrorOne => model::PathVerdict::ErrorOne,
            PathVerdict::Unknown => model::PathVerdict::Unknown,
        }
    }
}

impl From<Overall> for model::Overall {
    fn from(o: Overall) -> Self {
        match o {
            Overall::Equivalent => model::Overall::Equivalent,
            Overall::Diverged => model::Overall::Diverged,
            Overall::Inconclusive => model::Overall::Inconclusive,
        }
    }
}

impl From<Agreement> for model::Agreement {
    fn from(a: Agreement) -> Self {
        match a {
            Agreement::AllAgree => model::Agreement::AllAgree,
            Agreement::ADiffers => model::Agreement::ADiffers,
            Agreement::BDiffers => model::Agreement::BDiffers,
            Agreement::CDiffers => model::Agreement::CDiffers,
            Agreement::AllDiffer => model::Agreement::AllDiffer,
        }
    }
}

impl From<InputValue> for model::InputValue {
    fn from(i: InputValue) -> Self {
        model::InputValue {
            name: i.name,
            bytes: i.bytes,
            display: i.display,
        }
    }
}

impl From<PathRow> for model::PathRow {
    fn from(r: PathRow) -> Self {
        model::PathRow {
            id: r.id,
            verdict: r.verdict.into(),
            merged_paths: r.merged_paths,
            inputs: r.inputs.into_iter().map(Into::into).collect(),
            result_a: r.result_a,
            result_b: r.result_b,
            detail: r.detail,
            ktest: r.ktest,
            confirmed: r.confirmed.into(),
            native: r.native.into(),
            path: r.path,
            class: r.class,
            parts_at: r.parts_at,
            three: r.three.map(|t| model::ThreeWay {
                result_c: t.result_c,
                agreement: t.agreement.into(),
            }),
            undefined: r.undefined,
        }
    }
}

impl From<ShardInfo> for model::ShardInfo {
    fn from(s: ShardInfo) -> Self {
        model::ShardInfo {
            index: s.index,
            count: s.count,
            checks: s.checks,
            frontier: s.frontier,
            digest: s.digest,
        }
    }
}

impl From<DivergenceClass> for model::DivergenceClass {
    fn from(c: DivergenceClass) -> Self {
        model::DivergenceClass {
            class: c.class,
            rows: c.rows,
            confirmed: c.confirmed,
            example: c.example,
            partings: c
                .partings
                .into_iter()
                .map(|p| model::Parting {
                    at: p.at,
                    rows: p.rows,
                })
                .collect(),
        }
    }
}

impl From<Summary> for model::Summary {
    fn from(s: Summary) -> Self {
        model::Summary {
            title: s.title,
            overall: s.overall.into(),
            complete: s.complete,
            paths: s.paths,
            proved: s.proved,
            diverged: s.diverged,
            errors_both: s.errors_both,
            errors_one: s.errors_one,
            unconfirmed: s.unconfirmed,
            not_replayed: s.not_replayed,
            unknown: s.unknown,
            instructions: s.instructions,
            queries: s.queries,
            solver_time_ms: s.solver_time_ms,
            wall_time_ms: s.wall_time_ms,
            stop_reason: s.stop_reason,
            assumptions: s.assumptions,
            proof: s.proof,
            notes: s.notes,
            counters: s.counters,
            shard: s.shard.map(Into::into),
            classes: s.classes.into_iter().map(Into::into).collect(),
            odd_one_out: s
                .odd_one_out
                .into_iter()
                .map(|o| model::OddOneOut {
                    side: o.side,
                    program: o.program,
                    paths: o.paths,
                })
                .collect(),
            coverage: Vec::new(),
            routes: Vec::new(),
        }
    }
}

impl From<Report> for model::Report {
    fn from(r: Report) -> Self {
        model::Report {
            summary: r.summary.into(),
            rows: r.rows.into_iter().map(Into::into).collect(),
        }
    }
}

/// `#[serde(with)]` for an optional run verdict written as in `report.json` (`suite.json`'s
/// rows).
pub mod overall_opt {
    use super::{model, Overall};
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(v: &Option<model::Overall>, s: S) -> Result<S::Ok, S::Error> {
        v.map(Overall::from).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<model::Overall>, D::Error> {
        Ok(Option::<Overall>::deserialize(d)?.map(Into::into))
    }
}

/// `#[serde(with)]` for a shard's description written as in `report.json` (the gate's
/// `shard.json`).
pub mod shard_info {
    use super::{model, ShardInfo};
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(v: &model::ShardInfo, s: S) -> Result<S::Ok, S::Error> {
        ShardInfo::from(v).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<model::ShardInfo, D::Error> {
        Ok(ShardInfo::deserialize(d)?.into())
    }
}

#[cfg(test)]
#[path = "schema_tests.rs"]
mod tests;
