//! A dashboard member's role (`wire::scope::authorize_member`, the `dt_...` credential's
//! authorization): an owner and a developer run what a secret key runs; a viewer every read and
//! no write (403 `forbidden_role`), refused before the operation runs.

use crate::common::Fx;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use tokenpad_core::error::ErrorCode;
use tokenpad_core::model::account::Role;
use tokenpad_core::wire::op::{Op, Parts};
use tokenpad_core::wire::routes::route;
use tokenpad_core::wire::scope::authorize_member;

fn op(method: &str, path: &str, body: Value) -> Op {
    let m = route(method, path).expect("routes");
    let query = BTreeMap::new();
    let parts = Parts {
        params: &m.params,
        query: &query,
        body: &body,
    };
    Op::decode(m.route, &parts)
        .expect("decodes")
        .expect("an op")
}

#[test]
fn a_viewer_reads_and_never_writes() {
    let mut fx = Fx::new();
    fx.create_token(json!({ "name": "Alpha", "symbol": "ALPHA" }));
    fx.holder("alice");
    let writes = [
        ("PUT", "/holder/bob", json!({})),
        (
            "PATCH",
            "/merchant/settings",
            json!({ "privateMode": true }),
        ),
        ("POST", "/keys", json!({ "name": "Orders" })),
    ];
    for (method, path, body) in writes {
        let write = op(method, path, body);
        assert!(write.writes(), "{method} {path}");
        let refused = authorize_member(&fx.store, Role::Viewer, &fx.ctx.merchant, write.clone())
            .expect_err("a viewer's write");
        assert_eq!(refused.code, ErrorCode::ForbiddenRole, "{method} {path}");
        assert_eq!(refused.status(), 403);
        for role in [Role::Owner, Role::Developer] {
            assert!(
                authorize_member(&fx.store, role, &fx.ctx.merchant, write.clone()).is_ok(),
                "{role:?} {method} {path}"
            );
        }
    }
    for path in [
        "/holder/alice",
        "/keys",
        "/merchant/settings",
        "/merchant/parked-work",
    ] {
        let read = op("GET", path, Value::Null);
        for role in [Role::Owner, Role::Developer, Role::Viewer] {
            assert!(
                authorize_member(&fx.store, role, &fx.ctx.merchant, read.clone()).is_ok(),
                "{role:?} GET {path}"
            );
        }
    }
}
