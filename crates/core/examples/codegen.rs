//! Rewrites the files generated from the wire types and the route declarations (see
//! `tokenpad_core::codegen`): openapi.json's schemas, examples and the skeletons of the
//! operations it lacks, and src/js/generated/.
//!
//!   cargo run -p tokenpad-core --features codegen --example codegen

use std::process::ExitCode;
use tokenpad_core::codegen;

fn main() -> ExitCode {
    let root = codegen::root();
    let run = || -> Result<(), String> {
        let openapi = std::fs::read_to_string(root.join(codegen::OPENAPI))
            .map_err(|e| format!("{}: {e}", codegen::OPENAPI))?;
        for (path, text) in codegen::files(&openapi)? {
            let full = root.join(path);
            if std::fs::read_to_string(&full).ok().as_deref() == Some(text.as_str()) {
                println!("{path}: up to date");
                continue;
            }
            if let Some(dir) = full.parent() {
                std::fs::create_dir_all(dir).map_err(|e| format!("{path}: {e}"))?;
            }
            std::fs::write(&full, text).map_err(|e| format!("{path}: {e}"))?;
            println!("{path}: written");
        }
        Ok(())
    };
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("codegen: {e}");
            ExitCode::FAILURE
        }
    }
}
