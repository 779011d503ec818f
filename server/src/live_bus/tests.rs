use super::*;

#[tokio::test]
async fn viewers_of_a_showtime_get_its_messages_and_no_others() {
    let bus = LiveBus::default();
    let mut seven = bus.subscribe(ShowtimeId::try_from(7).unwrap());
    let mut eight = bus.subscribe(ShowtimeId::try_from(8).unwrap());
    bus.publish(ShowtimeId::try_from(7).unwrap(), LiveMessage::Ping)
        .await;
    assert_eq!(
        *seven.recv().await.unwrap(),
        BusItem::Event(LiveMessage::Ping, r#"{"type":"ping"}"#.into())
    );
    assert!(eight.try_recv().is_err());
}

#[tokio::test]
async fn a_viewer_that_falls_behind_is_told_it_lagged() {
    let bus = LiveBus::default();
    let mut slow = bus.subscribe(ShowtimeId::try_from(1).unwrap());
    for _ in 0..CHANNEL_CAPACITY + 10 {
        bus.publish(ShowtimeId::try_from(1).unwrap(), LiveMessage::Ping)
            .await;
    }
    assert!(matches!(
        slow.recv().await,
        Err(broadcast::error::RecvError::Lagged(_))
    ));
}

#[test]
fn channels_carry_the_showtime_as_a_hash_tag() {
    assert_eq!(
        channel("", ShowtimeId::try_from(42).unwrap()),
        "seats:{42}:live"
    );
    assert_eq!(
        showtime_of("", "seats:{42}:live"),
        Some(ShowtimeId::try_from(42).unwrap())
    );
    assert_eq!(showtime_of("", "seats:{x}:live"), None);
    assert_eq!(
        channel("c1:", ShowtimeId::try_from(42).unwrap()),
        "c1:seats:{42}:live"
    );
    assert_eq!(
        showtime_of("c1:", "c1:seats:{42}:live"),
        Some(ShowtimeId::try_from(42).unwrap())
    );
    assert_eq!(
        showtime_of("c2:", "c1:seats:{42}:live"),
        None,
        "another deployment's"
    );
}

/// A lost cluster connection: every viewer resyncs at once, and every watched showtime is
/// subscribed again, to be resynced once that stands (a revived shard has no subscribers).
#[tokio::test]
async fn a_lost_cluster_connection_resyncs_and_subscribes_every_watched_showtime_again() {
    let (first_viewer, mut showtimes) = tokio::sync::mpsc::unbounded_channel();
    let local = Local {
        first_viewer: Some(first_viewer),
        ..Local::default()
    };
    let seven = ShowtimeId::try_from(7).unwrap();
    let mut viewer = local.subscribe(seven);
    assert_eq!(showtimes.try_recv().unwrap(), (seven, false));
    local.on_push(redis::PushInfo {
        kind: redis::PushKind::Disconnection,
        data: vec![],
    });
    assert_eq!(*viewer.recv().await.unwrap(), BusItem::Resync);
    assert_eq!(showtimes.try_recv().unwrap(), (seven, true));
    assert!(showtimes.try_recv().is_err());
}
