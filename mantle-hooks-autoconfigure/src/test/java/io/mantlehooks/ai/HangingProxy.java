package io.mantlehooks.ai;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP proxy on loopback in front of a database that can hang: while hung it accepts
 * connections and reads what it is sent, but answers nothing, on new connections and on
 * the ones it had (a database that stopped responding, not one that is down). Forwarding
 * again closes every connection it held, as a database restart would.
 */
final class HangingProxy implements AutoCloseable {

	private final ServerSocket server;

	private final int targetPort;

	private final List<Socket> sockets = new CopyOnWriteArrayList<>();

	private volatile boolean hung;

	HangingProxy(int targetPort) throws IOException {
		this.targetPort = targetPort;
		this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
		Thread acceptor = new Thread(this::accept, "hanging-proxy");
		acceptor.setDaemon(true);
		acceptor.start();
	}

	int port() {
		return this.server.getLocalPort();
	}

	/**
	 * Answer nothing from now on.
	 */
	void hang() {
		this.hung = true;
	}

	/**
	 * Drop every connection held and forward new ones again.
	 */
	void forward() {
		this.hung = false;
		for (Socket socket : this.sockets) {
			closeQuietly(socket);
		}
		this.sockets.clear();
	}

	private void accept() {
		while (!this.server.isClosed()) {
			try {
				Socket client = this.server.accept();
				this.sockets.add(client);
				if (this.hung) {
					// keep it open, read nothing: the login never gets an answer
					continue;
				}
				Socket upstream = new Socket();
				upstream.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), this.targetPort));
				this.sockets.add(upstream);
				pump(client, upstream);
				pump(upstream, client);
			}
			catch (IOException ex) {
				// closed, or the target refused: the client sees its connection close
			}
		}
	}

	private void pump(Socket from, Socket to) {
		Thread pump = new Thread(() -> {
			byte[] buffer = new byte[8192];
			try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
				int read;
				while ((read = in.read(buffer)) >= 0) {
					if (!this.hung) {
						out.write(buffer, 0, read);
						out.flush();
					}
				}
			}
			catch (IOException ex) {
				// a side closed
			}
			finally {
				closeQuietly(from);
				closeQuietly(to);
			}
		}, "hanging-proxy-pump");
		pump.setDaemon(true);
		pump.start();
	}

	private static void closeQuietly(Socket socket) {
		try {
			socket.close();
		}
		catch (IOException ex) {
			// closing anyway
		}
	}

	@Override
	public void close() throws IOException {
		this.server.close();
		forward();
	}

}
