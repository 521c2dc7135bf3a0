package pg

import (
	"context"
	"errors"
	"fmt"

	"github.com/golang-migrate/migrate/v4"
	"github.com/golang-migrate/migrate/v4/database/postgres"
	"github.com/golang-migrate/migrate/v4/source/iofs"
	"github.com/jmoiron/sqlx"

	"github.com/socialnet/socialapi/db"
)

// withMigrator runs fn with a golang-migrate instance over one connection
// borrowed from the pool, and gives the connection back afterwards (the
// pool itself stays open for the caller).
func withMigrator(conn *sqlx.DB, fn func(*migrate.Migrate) error) error {
	ctx := context.Background()
	src, err := iofs.New(db.Migrations, "migrations")
	if err != nil {
		return fmt.Errorf("migrations source: %w", err)
	}
	c, err := conn.Conn(ctx)
	if err != nil {
		return fmt.Errorf("migrations connection: %w", err)
	}
	// A migration may run longer than the serving pool's statement_timeout
	// (an index on a large table), and pause between statements longer than
	// its idle_in_transaction_session_timeout: lift both for this session,
	// and restore the connection's start-up values before it goes back.
	if _, err := c.ExecContext(ctx, `SET statement_timeout = 0; SET idle_in_transaction_session_timeout = 0`); err != nil {
		c.Close()
		return fmt.Errorf("migrations connection: %w", err)
	}
	drv, err := postgres.WithConnection(ctx, c, &postgres.Config{})
	if err != nil {
		c.Close()
		return fmt.Errorf("migrations driver: %w", err)
	}
	m, err := migrate.NewWithInstance("iofs", src, "postgres", drv)
	if err != nil {
		c.Close()
		return fmt.Errorf("migrator: %w", err)
	}
	defer m.Close() // closes the source and the borrowed connection only
	// Deferred last, so it runs first, while the connection is still ours.
	defer func() {
		_, _ = c.ExecContext(ctx, `RESET statement_timeout; RESET idle_in_transaction_session_timeout`)
	}()
	return fn(m)
}

// MigrateUp applies every pending migration. It is safe to run concurrently
// from several instances: golang-migrate takes an advisory lock.
func MigrateUp(conn *sqlx.DB) error {
	return withMigrator(conn, func(m *migrate.Migrate) error {
		if err := m.Up(); err != nil && !errors.Is(err, migrate.ErrNoChange) {
			return fmt.Errorf("migrate up: %w", err)
		}
		return nil
	})
}

// MigrateDown reverts every applied migration.
func MigrateDown(conn *sqlx.DB) error {
	return withMigrator(conn, func(m *migrate.Migrate) error {
		if err := m.Down(); err != nil && !errors.Is(err, migrate.ErrNoChange) {
			return fmt.Errorf("migrate down: %w", err)
		}
		return nil
	})
}

// MigrationVersion reports the applied version and whether it is dirty.
func MigrationVersion(conn *sqlx.DB) (version uint, dirty bool, err error) {
	err = withMigrator(conn, func(m *migrate.Migrate) error {
		var verr error
		version, dirty, verr = m.Version()
		if errors.Is(verr, migrate.ErrNilVersion) {
			return nil
		}
		return verr
	})
	return version, dirty, err
}
