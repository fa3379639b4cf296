import numpy as np
import pytest

from macrocause.framework import Dataset, DataValidationError


def test_defaults_and_inference():
    ds = Dataset([[0, 1.5], [1, 2.0], [2, 0.5]])
    assert ds.names == ("x0", "x1")
    assert ds.discrete == (True, False)
    assert ds.n_samples == 3 and ds.n_variables == 2
    assert ds.X.dtype == np.float64


@pytest.mark.parametrize(
    "X, match",
    [
        ([[1.0, np.nan]], "NaN at row 0, column 1"),
        ([[1.0], [np.inf]], "inf at row 1, column 0"),
        ([1.0, 2.0], "got a 1-D array of length 2"),
        (np.zeros((2, 2, 2)), "got 3 dimensions"),
        (np.zeros((0, 3)), "at least one sample"),
        ([["a", "b"]], "must be numeric"),
    ],
)
def test_bad_matrices_are_refused(X, match):
    with pytest.raises(DataValidationError, match=match):
        Dataset(X)


def test_names_target_discrete_checks():
    X = np.zeros((3, 2))
    with pytest.raises(DataValidationError, match="got 1 names for 2 variables"):
        Dataset(X, names=["a"])
    with pytest.raises(DataValidationError, match="repeated: \\['a'\\]"):
        Dataset(X, names=["a", "a"])
    with pytest.raises(DataValidationError, match="length 3"):
        Dataset(X, target=[1, 2])
    with pytest.raises(DataValidationError, match="3 entries for 2 variables"):
        Dataset(X, discrete=[True, False, True])


def test_target_codes_and_states():
    ds = Dataset(np.zeros((4, 1)), target=["b", "a", "b", "c"])
    assert ds.target_states == ("a", "b", "c")
    assert ds.target_codes.tolist() == [1, 0, 1, 2]


def test_immutable_and_copied():
    X = np.ones((3, 2))
    ds = Dataset(X)
    X[0, 0] = 5
    assert ds.X[0, 0] == 1
    with pytest.raises(ValueError):
        ds.X[0, 0] = 2


def test_check_messages():
    ds = Dataset(np.column_stack([np.ones(3), np.arange(3.0)]), names=["c", "v"])
    with pytest.raises(DataValidationError, match="at least 5 samples, got 3"):
        ds.check("algo", min_samples=5)
    with pytest.raises(DataValidationError, match="constant columns: \\['c'\\]"):
        ds.check("algo", reject_constant=True)
    with pytest.raises(DataValidationError, match="needs a target"):
        ds.check("algo", need_target=True)
    one_state = Dataset(np.zeros((3, 1)), target=[1, 1, 1])
    with pytest.raises(DataValidationError, match="at least 2 distinct effect states"):
        one_state.check("algo", need_target=True)


def test_csv_roundtrip(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("a,b,y\n1,2.5,u\n3,4.5,v\n")
    ds = Dataset.from_csv(path, target="y")
    assert ds.names == ("a", "b")
    assert ds.target.tolist() == ["u", "v"]
    assert ds.X.tolist() == [[1.0, 2.5], [3.0, 4.5]]
    with pytest.raises(DataValidationError, match="Target column 'z' is not in d.csv"):
        Dataset.from_csv(path, target="z")
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b\n1,x\n")
    with pytest.raises(DataValidationError, match="non-numeric"):
        Dataset.from_csv(bad)
    with pytest.raises(DataValidationError, match="not found"):
        Dataset.from_csv(tmp_path / "missing.csv")


def test_pandas_roundtrip():
    ds = Dataset([[0, 1.5], [1, 2.0]], names=["k", "v"])
    df = ds.to_pandas()
    assert str(df["k"].dtype) == "category"
    back = Dataset.from_pandas(df)
    assert back.names == ds.names and np.array_equal(back.X, ds.X)


def test_transformations():
    ds = Dataset(np.arange(6.0).reshape(3, 2), names=["a", "b"], target=[0, 1, 0])
    aug = ds.with_column("z", [1, 0, 1])
    assert aug.names == ("a", "b", "z") and aug.discrete[-1] is True
    assert ds.n_variables == 2
    with pytest.raises(DataValidationError, match="exists already"):
        aug.with_column("z", [0, 0, 0])
    assert ds.select(["b"]).names == ("b",)
    assert ds.take([0, 2]).target.tolist() == [0, 0]
    z = ds.standardized().X
    assert np.allclose(z.mean(axis=0), 0) and np.allclose(z.std(axis=0), 1)


def test_csv_text_column_is_named_in_one_line_without_its_values(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("a,colour,b\n1,2,3\n4,secret-red,6\n")
    with pytest.raises(DataValidationError) as err:
        Dataset.from_csv(path)
    msg = str(err.value)
    assert "'colour'" in msg and "non-numeric" in msg and "data row 2" in msg
    assert "\n" not in msg and "secret" not in msg and "red" not in msg
    assert Dataset.from_csv(path, columns=["a", "b"]).X.tolist() == [[1.0, 3.0], [4.0, 6.0]]
    path.write_text("a,b\n1,\n")
    with pytest.raises(DataValidationError, match="column 'b' has an empty value at data row 1"):
        Dataset.from_csv(path)
    path.write_text("a,b\n1,2\n3\n")
    with pytest.raises(DataValidationError, match="data row 2 has 1 values for 2 columns"):
        Dataset.from_csv(path)
