//! `meter_and_cancel_household` on both stores: the household and the members its id names in
//! one write with the count, and every refusal told by the items as the conditions saw them.

use super::*;
use MemberRole::{Applicant, Guarantor};
use ports::{HouseholdCancelRefusal, Metered as Written, TransitionOutcome};

/// The cancel of `household_id` by the key of `mode`, naming `members`.
async fn cancel_named<S: Store>(
    store: &S,
    household_id: Uuid,
    mode: Mode,
    members: &[Uuid],
) -> Result<Written<(), HouseholdCancelRefusal>, ports::StoreError> {
    let key = key(mode);
    let request = MeteredHouseholdCancel {
        key: &key,
        now: now(),
        plans: &plans(),
        household_id,
        members,
    };
    store.meter_and_cancel_household(&request).await
}

async fn status_of<S: Store>(store: &S, id: Uuid) -> Status {
    store.get_verification(id).await.unwrap().unwrap().status
}

async fn complete<S: Store>(store: &S, id: Uuid) -> TransitionOutcome {
    let v = store.get_verification(id).await.unwrap().unwrap();
    let complete = Transition::Complete {
        report: Box::new(domain::report::IncomeReport::empty_for_tests()),
    };
    store.transition(&v, &complete, now()).await.unwrap()
}

on_both_stores!(a_household_cancel_carrying_its_metering_says_why_it_refused);
/// Counted and cancelled together with the members it names, once. A member completed before it
/// refuses it uncounted, told as it is, the others named as still open; named alone, they are
/// cancelled. A second cancel is refused as closed (with the household and each member as they
/// are); every member closed, as such (counted, nothing written); another mode's or account's
/// key, an unknown id with or without a shape, as not found; each of those counted alone.
async fn a_household_cancel_carrying_its_metering_says_why_it_refused<S: Store>(store: S) {
    account_with_keys(&store).await;
    let (household, m) = created_household(&store, &[Applicant, Applicant, Guarantor]).await;
    let id = household.household_id;
    let declined_as = |out| Metered::<()>::of(out);
    assert_eq!(
        declined_as(cancel_named(&store, id, Mode::Live, &m).await),
        declined("NotFound")
    );
    assert_eq!(
        declined_as(cancel_named(&store, Uuid::new_v4(), Mode::Test, &[]).await),
        declined("NotFound")
    );
    let shape = HouseholdShape::new(&[Applicant]).unwrap();
    let unknown = shape.new_household_id();
    let unknown_members: Vec<Uuid> = (shape.members(unknown).iter())
        .map(|m| m.verification_id)
        .collect();
    assert_eq!(
        declined_as(cancel_named(&store, unknown, Mode::Test, &unknown_members).await),
        declined("NotFound")
    );
    let (others, others_members) = household_of(&store, "acct_other", &[Applicant]).await;
    assert_eq!(
        declined_as(cancel_named(&store, others.household_id, Mode::Test, &others_members).await),
        declined("NotFound")
    );
    assert_eq!(status_of(&store, others_members[0]).await, Status::Pending);
    assert_eq!(
        count(&store).await,
        5,
        "the window's first and four refused"
    );

    // Member 1 completed before the cancel: refused, uncounted, told as it is.
    assert!(matches!(
        complete(&store, m[1]).await,
        TransitionOutcome::Applied(_)
    ));
    let refused = cancel_named(&store, id, Mode::Test, &m).await.unwrap();
    let Written::Refused(_, HouseholdCancelRefusal::MembersClosed { closed, open }) = refused
    else {
        panic!("refused by the completed member: {refused:?}")
    };
    let seen: Vec<(Uuid, Status)> = closed
        .iter()
        .map(|v| (v.verification_id, v.status))
        .collect();
    assert_eq!(seen, [(m[1], Status::Completed)]);
    assert_eq!(open, [m[0], m[2]]);
    assert_eq!(
        count(&store).await,
        5,
        "not counted: the caller names the others"
    );
    assert_eq!(
        status_of(&store, m[0]).await,
        Status::Pending,
        "nothing written"
    );
    let Metered::Wrote((account, ())) =
        declined_as(cancel_named(&store, id, Mode::Test, &open).await)
    else {
        panic!("the owner's cancel of the open members")
    };
    assert_eq!(account.api_requests, 6);
    for (member, status) in m
        .iter()
        .zip([Status::Expired, Status::Completed, Status::Expired])
    {
        assert_eq!(status_of(&store, *member).await, status);
    }

    // A second cancel: the household and every member as they are.
    let refused = cancel_named(&store, id, Mode::Test, &m).await.unwrap();
    let Written::Refused(_, HouseholdCancelRefusal::Closed(seen, members)) = refused else {
        panic!("refused as cancelled: {refused:?}")
    };
    assert_eq!(seen.cancelled_at, Some(now()));
    let statuses: Vec<Status> = members.iter().map(|v| v.status).collect();
    assert_eq!(
        statuses,
        [Status::Expired, Status::Completed, Status::Expired]
    );
    assert_eq!(count(&store).await, 7);

    // Every member closed before the cancel: refused, counted, nothing written.
    let (done, done_members) = created_household(&store, &[Applicant, Guarantor]).await;
    for member in &done_members {
        complete(&store, *member).await;
    }
    assert_eq!(
        declined_as(cancel_named(&store, done.household_id, Mode::Test, &done_members).await),
        declined("MembersClosed")
    );
    assert_eq!(count(&store).await, 8);
    let stored = store
        .get_household(done.household_id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.cancelled_at, None);
}

on_both_stores!(a_member_completing_while_its_household_is_cancelled_has_one_outcome);
/// A member's completion and the household's cancel, at once: exactly one of them lands. Either
/// the member completes and the cancel is refused by it (uncounted, the other member still open),
/// or the member is cancelled and its completion refused; never both, never neither.
async fn a_member_completing_while_its_household_is_cancelled_has_one_outcome<S: Store>(store: S) {
    account_with_keys(&store).await;
    let mut outcomes = Vec::new();
    for _ in 0..4 {
        let (household, m) = created_household(&store, &[Applicant, Applicant]).await;
        let started = store.get_verification(m[0]).await.unwrap().unwrap();
        store
            .transition(&started, &Transition::Start, now())
            .await
            .unwrap();
        let (completed, cancelled) = tokio::join!(
            complete(&store, m[0]),
            cancel_named(&store, household.household_id, Mode::Test, &m)
        );
        let stored = store
            .get_household(household.household_id)
            .await
            .unwrap()
            .unwrap();
        match (completed, cancelled.unwrap()) {
            (
                TransitionOutcome::Applied(_),
                Written::Refused(_, HouseholdCancelRefusal::MembersClosed { closed, open }),
            ) => {
                assert_eq!(closed.len(), 1);
                assert_eq!(closed[0].status, Status::Completed);
                assert_eq!(open, [m[1]]);
                assert_eq!(stored.cancelled_at, None);
                assert_eq!(status_of(&store, m[1]).await, Status::Pending);
                outcomes.push("completed");
            }
            (TransitionOutcome::Conflict(_), Written::Done(..)) => {
                assert_eq!(stored.cancelled_at, Some(now()));
                assert_eq!(status_of(&store, m[0]).await, Status::Expired);
                assert_eq!(status_of(&store, m[1]).await, Status::Expired);
                outcomes.push("cancelled");
            }
            other => panic!("both or neither: {other:?}"),
        }
    }
    println!("race outcomes: {outcomes:?}");
}
