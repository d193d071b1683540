//! What the in-memory store's persistent maps (`imbl`) lack beside `BTreeMap`.

use imbl::OrdMap;

/// `BTreeMap::retain` for the persistent maps, which have none: what `keep` refuses is
/// removed, and returned.
pub(super) fn retain<K: Ord + Clone, V: Clone>(
    map: &mut OrdMap<K, V>,
    keep: impl Fn(&K, &V) -> bool,
) -> Vec<V> {
    let gone: Vec<K> = map
        .iter()
        .filter(|(k, v)| !keep(k, v))
        .map(|(k, _)| k.clone())
        .collect();
    gone.iter().filter_map(|k| map.remove(k)).collect()
}
