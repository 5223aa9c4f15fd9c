CREATE TABLE IF NOT EXISTS mantle_transcript (
	id BIGINT AUTO_INCREMENT PRIMARY KEY,
	conversation_id VARCHAR(255) NOT NULL,
	turn_id VARCHAR(64) NOT NULL,
	sender_id VARCHAR(255) NOT NULL,
	channel VARCHAR(255) NOT NULL,
	role VARCHAR(16) NOT NULL,
	text CLOB NOT NULL,
	discarded BOOLEAN NOT NULL,
	outcome VARCHAR(64),
	created_at TIMESTAMP(9) WITH TIME ZONE NOT NULL
);

CREATE INDEX IF NOT EXISTS mantle_transcript_conversation_idx ON mantle_transcript (conversation_id, created_at);

CREATE TABLE IF NOT EXISTS mantle_approvals (
	id VARCHAR(64) PRIMARY KEY,
	conversation_id VARCHAR(255) NOT NULL,
	sender_id VARCHAR(255) NOT NULL,
	channel VARCHAR(255) NOT NULL,
	state VARCHAR(16) NOT NULL,
	batch CLOB NOT NULL,
	created_at TIMESTAMP(9) WITH TIME ZONE NOT NULL,
	expires_at TIMESTAMP(9) WITH TIME ZONE NOT NULL,
	claimed_at TIMESTAMP(9) WITH TIME ZONE
);

CREATE INDEX IF NOT EXISTS mantle_approvals_expires_idx ON mantle_approvals (expires_at);
