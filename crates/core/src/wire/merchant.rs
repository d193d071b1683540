//! The merchant's own resources: its settings (private mode) and the work parked for it.

use super::endpoint::{
    Access::Secret,
    Effect::{Reads, Writes},
    Route, Row,
};

/// This family's routes: method, path pattern, route, who may call it, whether it writes.
#[rustfmt::skip]
pub const ROUTES: &[Row] = &[
    ("GET", "/merchant/parked-work", Route::ParkedWork, Secret, Reads),
    ("GET", "/merchant/settings", Route::Settings, Secret, Reads),
    ("PATCH", "/merchant/settings", Route::PatchSettings, Secret, Writes),
];
