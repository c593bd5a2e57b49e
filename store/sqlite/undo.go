package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/ailab/ai-lab/store"
)

// UndoRecords returns every kept undo record, lowest Seq first.
func (s *Store) UndoRecords(ctx context.Context) (_ []store.UndoRecord, err error) {
	defer s.settle(&err)
	rows, err := s.read.QueryContext(ctx, `SELECT seq, data FROM undo_records ORDER BY seq`)
	if err != nil {
		return nil, fmt.Errorf("list the undo records: %w", err)
	}
	defer rows.Close()
	out := []store.UndoRecord{}
	for rows.Next() {
		var r store.UndoRecord
		if err := rows.Scan(&r.Seq, &r.Data); err != nil {
			return nil, fmt.Errorf("list the undo records: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// PutUndoRecord stores rec (replacing the same Seq) with the blobs not kept
// yet, in one transaction.
func (s *Store) PutUndoRecord(ctx context.Context, rec store.UndoRecord, blobs []store.UndoBlob) error {
	return s.undoTx(ctx, fmt.Sprintf("keep undo record %d", rec.Seq), func(tx *writeTx) error {
		return s.putUndo(ctx, tx, store.UndoPut{Record: rec, Blobs: blobs})
	})
}

// putUndo stores a record and the blobs it adds inside tx.
func (s *Store) putUndo(ctx context.Context, tx *writeTx, p store.UndoPut) error {
	if err := s.putBlobs(ctx, tx, p.Blobs); err != nil {
		return err
	}
	_, err := s.stmts.putUndoRecord.ExecContext(ctx, p.Record.Seq, p.Record.Data)
	return err
}

// DeleteUndoRecord removes a record and the blobs named in drop.
func (s *Store) DeleteUndoRecord(ctx context.Context, seq int64, drop []string) error {
	return s.undoTx(ctx, fmt.Sprintf("delete undo record %d", seq), func(tx *writeTx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM undo_records WHERE seq = ?`, seq); err != nil {
			return err
		}
		return deleteBlobs(ctx, tx, drop)
	})
}

// PutUndoBlobs stores the blobs not kept yet.
func (s *Store) PutUndoBlobs(ctx context.Context, blobs []store.UndoBlob) error {
	if len(blobs) == 0 {
		return nil
	}
	return s.undoTx(ctx, "keep undo contents", func(tx *writeTx) error { return s.putBlobs(ctx, tx, blobs) })
}

// DeleteUndoBlobs removes the named blobs.
func (s *Store) DeleteUndoBlobs(ctx context.Context, hashes []string) error {
	if len(hashes) == 0 {
		return nil
	}
	return s.undoTx(ctx, "delete undo contents", func(tx *writeTx) error { return deleteBlobs(ctx, tx, hashes) })
}

// undoTx runs fn in one write transaction; what names the step in errors.
func (s *Store) undoTx(ctx context.Context, what string, fn func(*writeTx) error) (err error) {
	defer s.settle(&err)
	defer s.wrote()
	defer s.writing()()
	tx, err := s.begin(ctx)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return tx.Commit()
}

// UndoBlob returns a blob's content.
func (s *Store) UndoBlob(ctx context.Context, hash string) (_ []byte, err error) {
	defer s.settle(&err)
	var data []byte
	err = s.read.QueryRowContext(ctx, `SELECT data FROM undo_blobs WHERE hash = ?`, hash).Scan(&data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("undo content %s: %w", hash, store.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("undo content %s: %w", hash, err)
	}
	if data == nil {
		data = []byte{}
	}
	return data, nil
}

// UndoState returns the state under key, nil when there is none.
func (s *Store) UndoState(ctx context.Context, key string) (_ []byte, err error) {
	defer s.settle(&err)
	var data []byte
	err = s.read.QueryRowContext(ctx, `SELECT data FROM undo_states WHERE key = ?`, key).Scan(&data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("undo state %s: %w", key, err)
	}
	return data, nil
}

// PutUndoState stores data under key; nil data removes the key.
func (s *Store) PutUndoState(ctx context.Context, key string, data []byte) (err error) {
	defer s.settle(&err)
	defer s.wrote()
	defer s.writing()()
	if data == nil {
		_, err = s.conn.ExecContext(ctx, `DELETE FROM undo_states WHERE key = ?`, key)
	} else {
		_, err = s.conn.ExecContext(ctx, `INSERT INTO undo_states (key, data) VALUES (?, ?)
ON CONFLICT (key) DO UPDATE SET data = excluded.data`, key, data)
	}
	if err != nil {
		return fmt.Errorf("undo state %s: %w", key, err)
	}
	return nil
}

func (s *Store) putBlobs(ctx context.Context, tx *writeTx, blobs []store.UndoBlob) error {
	if len(blobs) == 0 {
		return nil
	}
	stmt := s.stmts.putUndoBlob
	for _, b := range blobs {
		data := b.Data
		if data == nil {
			data = []byte{}
		}
		if _, err := stmt.ExecContext(ctx, b.Hash, data); err != nil {
			return fmt.Errorf("keep undo content %s: %w", b.Hash, err)
		}
	}
	return nil
}

func deleteBlobs(ctx context.Context, tx *writeTx, hashes []string) error {
	for _, h := range hashes {
		if _, err := tx.ExecContext(ctx, `DELETE FROM undo_blobs WHERE hash = ?`, h); err != nil {
			return fmt.Errorf("delete undo content %s: %w", h, err)
		}
	}
	return nil
}
