//! `vodbench schema` against the scenario files: every bundled scenario and every valid test
//! fixture, sweeps included, validates against the schema its kind prints (on-demand or
//! `--broadcast`), and plugin parameters of the wrong type are refused by the schema as they
//! are by `vodbench check`. An editor given the schema then flags what vodbench would refuse
//! and nothing it accepts.

mod common;
use common::{root, text, vodbench};
use std::path::{Path, PathBuf};

/// The schema `vodbench schema [ARGS]` prints, compiled.
fn compiled(args: &[&str]) -> (boon::Schemas, boon::SchemaIndex) {
    let mut cmd = vec!["schema"];
    cmd.extend_from_slice(args);
    let out = vodbench(&cmd);
    assert!(out.status.success(), "{}", text(&out).1);
    let schema: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut schemas = boon::Schemas::new();
    let mut compiler = boon::Compiler::new();
    let loc = "https://vodbench.invalid/scenario.schema.json";
    compiler.add_resource(loc, schema).unwrap();
    let index = compiler
        .compile(loc, &mut schemas)
        .unwrap_or_else(|e| panic!("`vodbench schema {args:?}` is not a valid schema: {e:#}"));
    (schemas, index)
}

/// A TOML file as the JSON value a schema-aware editor checks.
fn as_json(path: &Path) -> serde_json::Value {
    toml::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn toml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            toml_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "toml") {
            out.push(p);
        }
    }
}

#[test]
fn every_bundled_scenario_and_valid_fixture_validates_against_the_schema() {
    let on_demand = compiled(&[]);
    let broadcast = compiled(&["--broadcast"]);
    let mut files = Vec::new();
    toml_files(&root().join("scenarios"), &mut files);
    for f in std::fs::read_dir(root().join("tests/fixtures")).unwrap() {
        let p = f.unwrap().path();
        if p.extension().is_some_and(|x| x == "toml") {
            files.push(p);
        }
    }
    files.sort();
    assert!(files.len() >= 25, "{files:?}");
    let (mut sweeps, mut broadcasts) = (0, 0);
    for f in &files {
        let check = vodbench(&["check", f.to_str().unwrap()]);
        assert!(
            check.status.success(),
            "{}: {}",
            f.display(),
            text(&check).1
        );
        let value = as_json(f);
        let is_broadcast = value.get("broadcast").is_some();
        sweeps += usize::from(value.get("sweep").is_some());
        broadcasts += usize::from(is_broadcast);
        let (schemas, index) = if is_broadcast { &broadcast } else { &on_demand };
        if let Err(e) = schemas.validate(&value, *index) {
            panic!(
                "{} does not validate against its schema:\n{e:#}",
                f.display()
            );
        }
    }
    assert!(
        sweeps >= 10 && broadcasts >= 5,
        "{sweeps} sweeps, {broadcasts} broadcast files"
    );
}

/// `base` with the plugin table at `slot` (`prefetcher`, `disk.model`, …) replaced by `table`.
fn with_plugin(base: &toml::Table, slot: &str, table: &str) -> toml::Table {
    let mut scenario = base.clone();
    let value = toml::Value::Table(toml::from_str(table).unwrap());
    match slot.split_once('.') {
        Some((outer, inner)) => {
            let t = scenario
                .entry(outer)
                .or_insert_with(|| toml::Value::Table(toml::Table::new()));
            t.as_table_mut().unwrap().insert(inner.into(), value);
        }
        None => {
            scenario.insert(slot.to_string(), value);
        }
    }
    scenario
}

#[test]
fn plugin_parameters_of_the_wrong_type_fail_the_schema_and_check() {
    let (schemas, index) = compiled(&[]);
    let base = std::fs::read_to_string(root().join("tests/fixtures/tiny.toml")).unwrap();
    let base: toml::Table = toml::from_str(&base).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    // a warm-up in nanoseconds, as the scenario format takes it, is valid to both
    let mut ns = base.clone();
    ns["run"]
        .as_table_mut()
        .unwrap()
        .insert("warmup".into(), toml::Value::Integer(30_000_000_000));
    let path = tmp.path().join("warmup-ns.toml");
    std::fs::write(&path, toml::to_string(&ns).unwrap()).unwrap();
    let check = vodbench(&["check", path.to_str().unwrap()]);
    assert!(check.status.success(), "{}", text(&check).1);
    if let Err(e) = schemas.validate(&as_json(&path), index) {
        panic!("warmup in nanoseconds: {e:#}");
    }
    let cases: [(&str, &str); 6] = [
        ("prefetcher", "name = \"standard\"\nprocesses = \"many\""),
        (
            "prefetcher",
            "name = \"standard\"\ntarget = \"previous-block\"",
        ),
        (
            "buffer_pool",
            "name = \"love-prefetch\"\nprefetch_victims = 3",
        ),
        ("disk.model", "name = \"analytic\"\ncapacity = true"),
        (
            "disk.model",
            "name = \"analytic\"\nseek_factor_ms = \"fast\"",
        ),
        ("disk.scheduler", "name = \"real-time\"\nspacing = [4]"),
    ];
    for (i, (slot, table)) in cases.iter().enumerate() {
        let path = tmp.path().join(format!("case{i}.toml"));
        let bad = with_plugin(&base, slot, table);
        std::fs::write(&path, toml::to_string(&bad).unwrap()).unwrap();
        let check = vodbench(&["check", path.to_str().unwrap()]);
        assert_eq!(
            check.status.code(),
            Some(2),
            "{slot}: {table}: {}",
            text(&check).1
        );
        assert!(
            schemas.validate(&as_json(&path), index).is_err(),
            "the schema accepts [{slot}] {table}"
        );
        // the same plugin with the parameter left out is valid to both
        let name_only = table.lines().next().unwrap();
        let good = with_plugin(&base, slot, name_only);
        std::fs::write(&path, toml::to_string(&good).unwrap()).unwrap();
        let check = vodbench(&["check", path.to_str().unwrap()]);
        assert!(check.status.success(), "{}", text(&check).1);
        assert!(
            schemas.validate(&as_json(&path), index).is_ok(),
            "[{slot}] {name_only}"
        );
    }
}

#[test]
fn the_plugin_listing_names_each_parameters_values() {
    let out = vodbench(&["plugins"]);
    let (stdout, _) = text(&out);
    assert!(out.status.success());
    let line = |start: &str| {
        stdout
            .lines()
            .find(|l| l.trim_start().starts_with(start))
            .unwrap_or_else(|| panic!("no line `{start}` in\n{stdout}"))
            .trim()
            .to_string()
    };
    assert!(line("capacity (a size or null) = null:").contains("5GiB"));
    assert!(line("seek_factor_ms (number or null) = null:").contains("0.283"));
    assert!(line("spacing (a duration) = \"4s\":").contains("priority cutoffs"));
    line("prefetch_victims (\"any\" | \"referenced\") = \"referenced\":");
    line("kappa (a count (integer) or a percentage string like \"2.5%\") = \"2.5%\":");
    line("processes (integer) = 1:");
    // no type column falls back to a piece of the parameter's own description
    for l in stdout.lines().filter(|l| l.starts_with("      ")) {
        let (name, rest) = l.trim().split_once(' ').unwrap();
        assert!(rest.starts_with('('), "{l}");
        assert!(!rest.starts_with("()"), "an empty type: {l}");
        assert!(!name.is_empty());
    }
}
