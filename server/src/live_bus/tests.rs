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
