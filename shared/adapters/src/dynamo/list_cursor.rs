//! A list page at any offset in bounded memory: each source (an index partition, or a range of
//! it) is read one query page at a time, newest first, and the `offset` items before the page
//! are counted and dropped. While more than one query page is still to be skipped, they are read
//! with their keys only (a few hundred bytes each, however large the items); the last stretch
//! and the page itself are read whole, in one query when they fit (so a shallow page costs one
//! query, as it always did). `status=expired` merges three sources the same way. So a request
//! holds the items it returns plus one query page per source, whatever the offset.

use std::collections::{HashMap, VecDeque};

use aws_sdk_dynamodb::types::AttributeValue;

use super::items::{Item, s};
use super::{DynamoStore, unavailable};
use ports::StoreError;
use service::table_schema as schema;

/// Items per query at most (DynamoDB also caps a response at 1 MB).
pub(super) const QUERY_PAGE: usize = 1000;

/// One source of a list, newest first: an index partition, or the part of it the key condition
/// (`#pk = :pk`, optionally `AND #sk < :bound` / `#sk > :bound`) selects.
pub(super) struct Source<'a> {
    pub index: &'static str,
    pub pk_name: &'static str,
    pub sk_name: &'static str,
    pub pk: String,
    pub condition: &'static str,
    pub bound: Option<&'a str>,
}

/// A source being read: the current query page (keys only, or whole items), where the next one
/// starts, and the keys of the last item taken (a query of whole items starts right after it).
struct Cursor<'a> {
    source: Source<'a>,
    page: VecDeque<Item>,
    whole: bool,
    start: Option<HashMap<String, AttributeValue>>,
    done: bool,
    last_taken: Option<Item>,
    read: u64,
}

impl<'a> Cursor<'a> {
    fn new(source: Source<'a>) -> Self {
        Cursor {
            source,
            page: VecDeque::new(),
            whole: false,
            start: None,
            done: false,
            last_taken: None,
            read: 0,
        }
    }

    /// Reads the next query page if the current one is used up: whole items when the `skip`
    /// items still to drop and the `page` items still to return fit in one query, else keys only.
    async fn fill(
        &mut self,
        store: &DynamoStore,
        skip: usize,
        page: usize,
    ) -> Result<(), StoreError> {
        while self.page.is_empty() && !self.done && skip + page > 0 {
            let whole = skip + page <= QUERY_PAGE;
            let limit = if whole {
                skip + page
            } else {
                skip.min(QUERY_PAGE)
            };
            let src = &self.source;
            let mut request = store
                .client
                .query()
                .table_name(&store.table)
                .index_name(src.index)
                .key_condition_expression(src.condition)
                .expression_attribute_names("#pk", src.pk_name)
                .expression_attribute_values(":pk", s(&src.pk))
                .scan_index_forward(false)
                .limit(limit as i32)
                .set_exclusive_start_key(self.start.take());
            if src.condition.contains("#sk") {
                request = request.expression_attribute_names("#sk", src.sk_name);
            }
            if let Some(bound) = src.bound {
                request = request.expression_attribute_values(":bound", s(bound));
            }
            if !whole {
                request = request
                    .projection_expression("#pk, #sk, #tpk, #tsk")
                    .expression_attribute_names("#sk", src.sk_name)
                    .expression_attribute_names("#tpk", schema::PK)
                    .expression_attribute_names("#tsk", schema::SK);
            }
            let out = request.send().await.map_err(unavailable)?;
            let items = out.items.unwrap_or_default();
            self.read += items.len() as u64;
            self.start = out.last_evaluated_key;
            self.done = self.start.is_none();
            self.whole = whole;
            self.page.extend(items);
        }
        Ok(())
    }

    fn head_key(&self) -> Option<&str> {
        self.page
            .front()
            .map(|item| sort_key(item, self.source.sk_name))
    }

    fn take(&mut self) -> Option<Item> {
        let item = self.page.pop_front()?;
        let keys = [
            self.source.pk_name,
            self.source.sk_name,
            schema::PK,
            schema::SK,
        ];
        self.last_taken = Some(
            keys.iter()
                .filter_map(|k| item.get(*k).map(|v| (k.to_string(), v.clone())))
                .collect(),
        );
        Some(item)
    }

    /// The page begins: keys still held are read again whole, from right after the last item
    /// taken (whole items held are kept; a source used up stays so).
    fn read_whole(&mut self) {
        if self.whole || self.page.is_empty() {
            return;
        }
        self.page.clear();
        self.start = self.last_taken.clone();
        self.done = false;
    }
}

fn sort_key<'i>(item: &'i Item, name: &str) -> &'i str {
    match item.get(name) {
        Some(AttributeValue::S(key)) => key,
        _ => "",
    }
}

/// The items at `offset..offset + limit` of the sources merged newest first (by their sort
/// key; one verification in two sources, as a sweep between two queries can show it, counts
/// once), and how many items the queries read.
pub(super) async fn page_of(
    store: &DynamoStore,
    sources: Vec<Source<'_>>,
    offset: usize,
    limit: usize,
) -> Result<(Vec<Item>, u64), StoreError> {
    let mut cursors: Vec<Cursor> = sources.into_iter().map(Cursor::new).collect();
    let mut skipped = 0;
    while skipped < offset {
        if next(store, &mut cursors, offset - skipped, limit)
            .await?
            .is_none()
        {
            break;
        }
        skipped += 1;
    }
    for cursor in &mut cursors {
        cursor.read_whole();
    }
    let mut page = Vec::with_capacity(limit);
    while page.len() < limit {
        match next(store, &mut cursors, 0, limit - page.len()).await? {
            Some(item) => page.push(item),
            None => break,
        }
    }
    Ok((page, cursors.iter().map(|c| c.read).sum()))
}

/// The newest item at the head of any cursor (taken, with its copies in the other cursors).
async fn next(
    store: &DynamoStore,
    cursors: &mut [Cursor<'_>],
    skip: usize,
    page: usize,
) -> Result<Option<Item>, StoreError> {
    let fills = cursors.iter_mut().map(|c| c.fill(store, skip, page));
    let filled = futures::future::join_all(fills).await;
    filled.into_iter().collect::<Result<Vec<()>, _>>()?;
    let newest = (cursors.iter().enumerate())
        .filter_map(|(i, c)| c.head_key().map(|k| (i, k.to_string())))
        .max_by(|a, b| a.1.cmp(&b.1));
    let Some((i, key)) = newest else {
        return Ok(None);
    };
    for (j, cursor) in cursors.iter_mut().enumerate() {
        if j != i && cursor.head_key() == Some(key.as_str()) {
            cursor.take();
        }
    }
    Ok(cursors[i].take())
}
