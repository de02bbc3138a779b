//! A webhook receiver on loopback that answers 200 after a fixed delay and records how many
//! requests it held at once.

use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use tokio::net::TcpListener;

pub struct SlowReceiver {
    pub url: String,
    received: Arc<AtomicUsize>,
    in_flight: Arc<AtomicUsize>,
    max_in_flight: Arc<AtomicUsize>,
    server: tokio::task::JoinHandle<()>,
}

impl Drop for SlowReceiver {
    fn drop(&mut self) {
        self.server.abort();
    }
}

impl SlowReceiver {
    pub async fn start(delay: Duration) -> std::io::Result<SlowReceiver> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let url = format!("http://{}/webhooks", listener.local_addr()?);
        let received = Arc::new(AtomicUsize::new(0));
        let in_flight = Arc::new(AtomicUsize::new(0));
        let max_in_flight = Arc::new(AtomicUsize::new(0));
        let counters = (received.clone(), in_flight.clone(), max_in_flight.clone());
        let server = tokio::spawn(async move {
            let mut connections = tokio::task::JoinSet::new();
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    continue;
                };
                let counters = counters.clone();
                connections.spawn(async move {
                    let service =
                        hyper::service::service_fn(move |req: hyper::Request<Incoming>| {
                            let (received, in_flight, max_in_flight) = counters.clone();
                            async move {
                                let now = in_flight.fetch_add(1, Ordering::SeqCst) + 1;
                                max_in_flight.fetch_max(now, Ordering::SeqCst);
                                let _ = req.into_body().collect().await;
                                tokio::time::sleep(delay).await;
                                received.fetch_add(1, Ordering::SeqCst);
                                in_flight.fetch_sub(1, Ordering::SeqCst);
                                Ok::<_, Infallible>(hyper::Response::new(Full::new(
                                    Bytes::from_static(b"ok"),
                                )))
                            }
                        });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                        .await;
                });
            }
        });
        Ok(SlowReceiver {
            url,
            received,
            in_flight,
            max_in_flight,
            server,
        })
    }

    pub fn received(&self) -> usize {
        self.received.load(Ordering::SeqCst)
    }

    /// The most requests held at the same time since the last reset.
    pub fn max_in_flight(&self) -> usize {
        self.max_in_flight.load(Ordering::SeqCst)
    }

    pub fn reset(&self) {
        self.received.store(0, Ordering::SeqCst);
        self.max_in_flight
            .store(self.in_flight.load(Ordering::SeqCst), Ordering::SeqCst);
    }
}
