//! README's five-minute tour runs as written against the lab: its Python block (ncclient,
//! Debian's python3-ncclient) with only the port and the state directory put in, then, once
//! lab2's measured allowance is in force, README's `<action>` example. Every filter in it
//! selects what it names (a node in the wrong namespace would select nothing), and lab2 ends
//! on the measured allowance, as the text after the tour says.

use std::process::Command;

use test_support::lab::LabPfcd;

/// The Python block that follows `marker` in README.md.
fn python_after(readme: &str, marker: &str) -> String {
    let at = readme.find(marker).unwrap_or_else(|| panic!("README has {marker:?}"));
    let start = readme[at..].find("```python\n").expect("a Python block") + at + 10;
    let end = readme[start..].find("```").expect("its end") + start;
    readme[start..end].to_string()
}

#[test]
fn the_readme_tour_runs_as_written_on_the_lab() {
    let pfcd = LabPfcd::start("readme-tour");
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).expect("README");
    let state = pfcd.state_dir();
    let tour = python_after(&readme, "A five-minute tour with ncclient")
        .replace("port=830", &format!("port={}", pfcd.port))
        .replace("pfcd-state/", &format!("{}/", state.display()));
    assert!(tour.contains(&format!("port={}", pfcd.port)), "the tour connects: {tour}");
    let action = python_after(&readme, "With\nncclient:");
    let script = format!(
        "{tour}\n\
         import time\n\
         lab2 = f'''<interfaces xmlns=\"{{IF}}\"><interface><name>lab2</name><bridge-port \
         xmlns=\"{{BRIDGE}}\"><pfc xmlns=\"{{PFC}}\"><allowance-source/></pfc></bridge-port>\
         </interface></interfaces>'''\n\
         t = time.monotonic()\n\
         while 'measurement-result</allowance-source>' not in m.get(('subtree', lab2)).data_xml:\n\
         \x20   if time.monotonic() - t > 60: raise SystemExit('lab2 is not on its measured allowance')\n\
         \x20   time.sleep(0.2)\n\
         {action}\n\
         print('TOUR DONE')\n"
    );
    let out =
        Command::new("/usr/bin/python3").args(["-c", &script]).output().expect("python3 runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("TOUR DONE"),
        "the tour: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Step 1 reads the four Table 12-1 objects on every port; step 3 lab2's drops, which are
    // pfcd-pfc's (named in that namespace in the filter).
    assert_eq!(stdout.matches("<pfc-headroom-allowance>").count(), 4, "{stdout}");
    assert!(stdout.contains("<frames-dropped"), "step 3 selects frames-dropped: {stdout}");
    assert!(stdout.contains("<true-headroom>"), "{stdout}");
}
