-- The one-statement append (stud_service/store/_writer.py) chains each command from the hash of
-- the event it expects to follow, as the client remembers it. The statement checks that link
-- against the stored event and, when it does not hold (the expected event is missing or has
-- another hash), calls this to fail the whole statement, so nothing of the batch is written.
CREATE FUNCTION stud_broken_link(p_stream text, p_expected bigint) RETURNS bigint
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'stream % has no event % with the hash the command chains from', p_stream, p_expected
        USING ERRCODE = 'SD409';
END;
$$;
