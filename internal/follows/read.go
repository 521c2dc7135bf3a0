package follows

import (
	"context"

	"github.com/jmoiron/sqlx"

	"github.com/socialnet/socialapi/internal/hydrate"
	"github.com/socialnet/socialapi/internal/pg"
)

// ToggleProfile is Toggle followed by the followee's profile as followerID
// now sees it, read in the same transaction so that it shows the toggle's
// own result even when another toggle of the pair commits right after.
func (s *Store) ToggleProfile(ctx context.Context, followerID int64, followeeHandle string) (bool, hydrate.Profile, error) {
	var (
		following bool
		p         hydrate.Profile
	)
	st, err := s.writeStmt(ctx)
	if err != nil {
		return false, hydrate.Profile{}, err
	}
	err = pg.WithTx(ctx, s.db, func(tx *sqlx.Tx) error {
		var err error
		if following, _, err = toggle(ctx, tx.StmtxContext(ctx, st).GetContext, followerID, followeeHandle); err != nil {
			return err
		}
		p, err = hydrate.GetProfile(ctx, s.prep.Tx(tx), followerID, followeeHandle)
		return err
	})
	return following, p, err
}
